/**
 * The canary of the inventory's MCP server (issue 27): fresh secrets of every kind planted in a
 * machine's files (a host's MCP server entries, a skill's body, an agent's description, a
 * command, a PATH name, a version probe's output) reach no answer of any tool or resource, no
 * line on stderr and no file tool-map writes, through `tool-map mcp` and through the gateway's
 * entry (`mcp --gateway`, whose skills tools read the same inventory). The gateway's downstream
 * side has its own canary (test/mcp/gateway/canary.test.ts).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { BIN, makeTempDir, requireBuiltCli, runCli, writeExecutable } from "../support/cli.js"

const hex = (bytes: number) => randomBytes(bytes).toString("hex")
const upper = (length: number) => Array.from(randomBytes(length), (byte) => "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[byte % 32]).join("")

/** Fresh secrets, each in the form its kind has in the wild, and the part of it a leak would show. */
const canaries = () => {
  const mark = hex(6)
  const pem = `MIIEpAIBAAKCAQEA${hex(24)}`
  return {
    apiKeyFlag: `ak${mark}${hex(8)}`,
    envValue: `ntn_${hex(16)}`,
    urlPassword: `pw${hex(10)}`,
    urlQuery: `qk${hex(10)}`,
    header: `hb${hex(12)}Z`,
    github: `ghp_${hex(18)}`,
    aws: `AKIA${upper(16)}`,
    awsSecret: `${hex(10)}/${hex(9)}`,
    openai: `sk-${hex(20)}`,
    pemBody: pem,
    probe: `ghp_${hex(18)}`,
    pathName: `ghp_${hex(18)}`,
    command: `tok${hex(12)}`
  }
}

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

/** Every file under `dir`, with its text. */
const filesUnder = (dir: string): ReadonlyArray<readonly [string, string]> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => {
      const file = path.join(entry.parentPath, entry.name)
      return [file, fs.readFileSync(file, "latin1")] as const
    })
    : []

describe("the inventory's MCP server: no planted secret reaches any output (issue 27)", () => {
  const temp = makeTempDir("tool-map-canary-")
  afterAll(() => temp.remove())

  it("through every tool and resource of tool-map mcp and the gateway's skills tools, on stderr and in every file written", async () => {
    requireBuiltCli()
    const secret = canaries()
    const root = temp.dir
    const home = path.join(root, "home")
    const bin = path.join(root, "bin")
    const data = path.join(root, "data")
    writeExecutable(path.join(bin, "git"), `#!/bin/sh\necho 'git version 2.99.1 (token=${secret.probe})'\n`)
    writeExecutable(path.join(bin, `deploy-${secret.pathName}`))
    write(
      path.join(home, ".claude.json"),
      JSON.stringify({
        mcpServers: {
          notion: { command: "npx", args: ["@notionhq/notion-mcp-server", "--api-key", secret.apiKeyFlag], env: { NOTION_API_KEY: secret.envValue } },
          remote: {
            type: "http",
            url: `https://user:${secret.urlPassword}@mcp.example.com/mcp?api_key=${secret.urlQuery}`,
            headers: { Authorization: `Bearer ${secret.header}` }
          },
          inline: { command: `/opt/srv --token=${secret.command}` }
        }
      })
    )
    write(
      path.join(home, ".claude", "skills", "deploy", "SKILL.md"),
      [
        "---",
        "name: deploy",
        `description: Deploys with AWS key ${secret.aws} and ${secret.openai}`,
        "---",
        "Run `curl -H \"Authorization: Bearer " + secret.header + "\" https://api.example.com`.",
        `export GITHUB_TOKEN=${secret.github}`,
        "[default]",
        `aws_secret_access_key = ${secret.awsSecret}`,
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        secret.pemBody,
        "-----END OPENSSH PRIVATE KEY-----",
        ""
      ].join("\n")
    )
    write(path.join(home, ".claude", "agents", "ops.md"), `---\nname: ops\ndescription: Uses ${secret.openai} for deploys\n---\nBody ${secret.github}\n`)
    write(path.join(home, ".claude", "commands", "ship.md"), `---\ndescription: Ships with --api-key=${secret.apiKeyFlag}\n---\nRun it.\n`)
    const env: Record<string, string> = { HOME: home, PATH: bin, PLUGIN_DATA: data, LANG: "C.UTF-8" }
    const scan = runCli(["scan"], env)
    expect(scan.status).toBe(0)

    const outputs: Array<readonly [string, string]> = [["scan stdout", scan.stdout], ["scan stderr", scan.stderr]]
    const session = async (args: ReadonlyArray<string>, calls: (client: Client) => Promise<void>) => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...args], env, cwd: home, stderr: "pipe" })
      let stderr = ""
      transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
      const client = new Client({ name: "canary", version: "1.0.0" })
      client.fallbackNotificationHandler = async (notification) => {
        outputs.push([`${args.join(" ")} notification`, JSON.stringify(notification)])
      }
      await client.connect(transport)
      outputs.push([`${args.join(" ")} tools/list`, JSON.stringify(await client.listTools())])
      await calls(client)
      for (const [name, input] of [["nope", {}], ["which", { names: 5 }]] as const) {
        outputs.push([`${args.join(" ")} ${name} refused`, await client.callTool({ name, arguments: input }).then(JSON.stringify, String)])
      }
      await client.close()
      outputs.push([`${args.join(" ")} stderr`, stderr])
    }

    await session(["mcp"], async (client) => {
      const call = async (name: string, input: Record<string, unknown>) =>
        outputs.push([`mcp ${name} ${JSON.stringify(input)}`, await client.callTool({ name, arguments: input }).then(JSON.stringify, String)])
      await call("which", { names: ["git", `deploy-${secret.pathName}`, "deploy"] })
      for (const kind of ["tools", "agents", "skills", "commands", "mcp", "plugins"]) {
        await call("inventory_query", { kind })
        if (kind !== "tools") await call("inventory_query", { kind, all: true })
      }
      await call("inventory_query", { kind: "tools", name: "*ghp_*" })
      await call("inventory_refresh", { force: true })
      const resources = await client.listResources()
      outputs.push(["mcp resources/list", JSON.stringify(resources)])
      for (const resource of resources.resources) outputs.push([`mcp read ${resource.uri}`, JSON.stringify(await client.readResource({ uri: resource.uri }))])
    })
    await session(["mcp", "--gateway", "--agent", "canary"], async (client) => {
      const call = async (name: string, input: Record<string, unknown>) =>
        outputs.push([`gateway ${name} ${JSON.stringify(input)}`, await client.callTool({ name, arguments: input }).then(JSON.stringify, String)])
      await call("skills_find", { query: "deploy aws key" })
      await call("skills_route", { query: "deploy the service with the aws key" })
      await call("tools_ls", {})
      await call("tools_find", { query: "deploy" })
    })
    for (const [file, text] of filesUnder(data)) outputs.push([file, text])

    // The sessions ran and answered: the canary is not vacuous.
    expect(outputs.some(([what, text]) => what.startsWith("gateway skills_route") && text.includes("[redacted]"))).toBe(true)
    expect(outputs.some(([what, text]) => what.startsWith("mcp inventory_query {\"kind\":\"mcp\"}") && text.includes("notion"))).toBe(true)
    const leaks = outputs.flatMap(([what, text]) =>
      Object.entries(secret).flatMap(([kind, value]) => (text.includes(value) ? [`${kind} in ${what}`] : []))
    )
    expect(leaks).toEqual([])
  }, 120_000)
})
