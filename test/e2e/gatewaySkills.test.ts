/**
 * `skills_find` and `skills_route` through the built CLI's gateway, in every spelling of its flags
 * (issue 27, point 12): `--agent x` is served by the gateway's own entry, `--agent=x` by the whole
 * CLI; both search the inventory of the agent hosts.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { BIN, makeTempDir, requireBuiltCli } from "../support/cli.js"

let temp: ReturnType<typeof makeTempDir> | undefined
let home: string
let servers: string
let env: Record<string, string>

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

beforeAll(() => {
  requireBuiltCli()
  temp = makeTempDir("tool-map-e2e-gateway-skills-")
  home = path.join(temp.dir, "home")
  const bin = path.join(temp.dir, "bin")
  fs.mkdirSync(bin, { recursive: true })
  write(path.join(home, ".claude.json"), "{}")
  write(path.join(home, ".claude", "skills", "review-helper", "SKILL.md"), "---\nname: review-helper\ndescription: Helps review pull requests\n---\nRead the diff first.\n")
  write(path.join(home, ".claude", "agents", "reader.md"), "---\nname: reader\ndescription: Reads code for a review\ntools: [Read, Grep]\n---\n")
  servers = path.join(temp.dir, "servers.json")
  write(servers, JSON.stringify({ mcpServers: {} }))
  env = { HOME: home, PATH: bin, PLUGIN_DATA: path.join(temp.dir, "data"), LANG: "C.UTF-8" }
})
afterAll(() => temp?.remove())

const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content.map((part) => part.text).join("\n")

/** skills_find and skills_route of `tool-map ARGS` as an SDK client over stdio gets them. */
const askSkills = async (args: ReadonlyArray<string>) => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...args], env, cwd: home, stderr: "pipe" })
  const client = new Client({ name: "skills-e2e", version: "1.0.0" })
  await client.connect(transport)
  try {
    const found = textOf(await client.callTool({ name: "skills_find", arguments: { query: "review pull requests" } }))
    const routed = textOf(await client.callTool({ name: "skills_route", arguments: { query: "review pull requests" } }))
    return { found, routed }
  } finally {
    await client.close()
  }
}

const expected = () => {
  const skill = path.join(home, ".claude", "skills", "review-helper", "SKILL.md")
  const agent = path.join(home, ".claude", "agents", "reader.md")
  return {
    found: [
      `2 for "review pull requests", best first (skills_route returns the best one's instructions):`,
      "  2.04  skill review-helper (claude-code)  Helps review pull requests",
      `        ${skill}`,
      "        why: name: review; description: review, pull, requests",
      "  0.47  agent reader (claude-code)  Reads code for a review",
      `        ${agent}`,
      "        why: description: review"
    ].join("\n"),
    routed: [
      `Best skill for "review pull requests": review-helper (claude-code), ${skill}`,
      "Instructions:",
      "---",
      "name: review-helper",
      "description: Helps review pull requests",
      "---",
      "Read the diff first."
    ].join("\n")
  }
}

const SPELLINGS: ReadonlyArray<ReadonlyArray<string>> = [
  // Served by the gateway's entry (dist/tool-map.gateway.cjs).
  ["mcp", "--servers", "SERVERS", "--agent", "e2e"],
  ["mcp", "--gateway"],
  ["mcp", "--gateway", "--agent", "e2e"],
  // Handed over to the whole CLI.
  ["mcp", "--servers=SERVERS", "--agent=e2e"],
  ["mcp", "--gateway", "--agent=e2e"]
]

it.each(SPELLINGS.map((line) => [line.join(" ")]))("%s answers skills_find and skills_route from the inventory", async (words) => {
  const line = words.split(" ").map((word) => word.replace("SERVERS", servers))
  expect(await askSkills(line)).toEqual(expected())
})
