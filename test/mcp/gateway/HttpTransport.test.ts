import { expect, it } from "vitest"
import { httpTarget } from "../../../src/mcp/gateway/HttpTransport.js"

const target = (url: string, headers: Record<string, string> = {}) => {
  const { url: to, headers: sent } = httpTarget(url, headers)
  return { url: to.href, headers: sent }
}

it("moves a URL's userinfo into Authorization: Basic, decoded, and strips it from the URL", () => {
  expect(target("http://u:p%40ss%20word@127.0.0.1:9/mcp?api_key=K", { "x-test": "1" })).toEqual({
    url: "http://127.0.0.1:9/mcp?api_key=K",
    headers: { "x-test": "1", authorization: `Basic ${Buffer.from("u:p@ss word").toString("base64")}` }
  })
  // A user alone (a token as user name), and a `%` that starts no escape, kept as written.
  expect(target("https://TOKEN@example.com/mcp").headers).toEqual({ authorization: `Basic ${Buffer.from("TOKEN:").toString("base64")}` })
  expect(target("http://u:100%zz@h/").headers).toEqual({ authorization: `Basic ${Buffer.from("u:100%zz").toString("base64")}` })
})

it("keeps an Authorization header of the entry, and a URL without userinfo, as they are", () => {
  expect(target("http://u:p@h/mcp", { Authorization: "Bearer mine" })).toEqual({ url: "http://h/mcp", headers: { Authorization: "Bearer mine" } })
  expect(target("http://h/mcp", { a: "b" })).toEqual({ url: "http://h/mcp", headers: { a: "b" } })
})
