import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { makeTempDir, requireBuiltCli, runCli } from "../support/cli.js"
import { ROUTER_FIXTURE } from "../catalog/core/routerFixture.js"

describe("tool-map catalog find through the built CLI", () => {
  let temp: ReturnType<typeof makeTempDir> | undefined

  beforeAll(() => requireBuiltCli())
  afterEach(() => temp?.remove())

  const setup = () => {
    temp = makeTempDir("tool-map-find-e2e-")
    const home = path.join(temp.dir, "home")
    fs.mkdirSync(home)
    const schemas = path.join(temp.dir, "tools.json")
    fs.writeFileSync(schemas, JSON.stringify(ROUTER_FIXTURE))
    const env = { HOME: home, XDG_DATA_HOME: path.join(temp.dir, "xdg"), PATH: "/usr/bin:/bin", LANG: "C.UTF-8" }
    return { env, schemas, dir: temp.dir }
  }

  it("prints the ranked tools with why, as text and as JSON", () => {
    const { env, schemas } = setup()
    const text = runCli(["catalog", "find", "post a message in the channel", "-k", "1", "--schemas", schemas], env)
    expect([text.status, text.stderr]).toEqual([0, ""])
    expect(text.stdout).toBe([
      "1 tool for \"post a message in the channel\", best first (load with `tool-map catalog load TARGET`):",
      "     8.27  /communication/slack/post_message  ~54 tok  Post a message to a Slack channel.",
      "        why: name: post, message; description: post, message, channel; parameters: post, channel",
      ""
    ].join("\n"))
    const json = runCli(["catalog", "find", "create an issue", "--json"], env)
    expect(json.status).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual({
      query: "create an issue",
      k: 10,
      tools: [{
        name: "mcp__github__create_issue",
        path: "/code/github/create_issue",
        summary: "Create a new issue in a GitHub repository.",
        tokens: 51,
        score: 6.78,
        highRisk: false,
        loaded: false,
        matched: [
          { field: "name", words: ["create", "issue"] },
          { field: "description", words: ["create", "issue"] },
          { field: "parameters", words: ["issue"] }
        ]
      }, {
        // Found only through words the lexicon relates to the task's ("issue": public, content).
        name: "mcp__slack__list_channels",
        path: "/communication/slack/list_channels",
        summary: "List the public channels of the workspace.",
        tokens: 30,
        score: 0.41,
        highRisk: false,
        loaded: false,
        matched: []
      }, {
        name: "read_text_file",
        path: "/files/misc/read_text_file",
        summary: "Read the complete contents of a file as text.",
        tokens: 50,
        score: 0.37,
        highRisk: false,
        loaded: false,
        matched: []
      }],
      warnings: []
    })
  })

  it("answers a batch of queries with one JSON line each, and refuses a bad queries file (exit 6)", () => {
    const { env, schemas, dir } = setup()
    const queries = path.join(dir, "queries.jsonl")
    fs.writeFileSync(queries, [
      JSON.stringify({ qid: "q1", query: "list the channels of the workspace" }),
      "",
      JSON.stringify({ qid: 2, query: "nothing here matches" })
    ].join("\n"))
    const batch = runCli(["catalog", "find", "--queries", queries, "-k", "2", "--schemas", schemas], env)
    expect([batch.status, batch.stderr]).toEqual([0, ""])
    expect(batch.stdout).toBe([
      JSON.stringify({ qid: "q1", results: ["mcp__slack__list_channels", "mcp__slack__post_message"] }),
      JSON.stringify({ qid: 2, results: [] }),
      ""
    ].join("\n"))
    fs.writeFileSync(queries, `${JSON.stringify({ qid: "q1", query: "x" })}\n{"qid": "q2"}\n`)
    const bad = runCli(["catalog", "find", "--queries", queries], env)
    expect([bad.status, bad.stdout, bad.stderr]).toEqual([
      6,
      "",
      `tool-map: The queries file ${queries} cannot be used: line 2 is not a JSON object {qid, query}.\n`
    ])
    const none = runCli(["catalog", "find"], env)
    expect([none.status, none.stderr]).toEqual([
      2,
      "tool-map: tool-map catalog find: give a QUERY (the task in plain words) or --queries FILE.jsonl.\n"
    ])
  })
})
