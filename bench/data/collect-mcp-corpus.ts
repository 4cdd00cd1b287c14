/**
 * Builds `mcp-tool-schemas.json`: the tool schemas of real MCP servers published on npm,
 * the corpus the token estimate is measured against.
 *
 *   npm install --prefix /tmp/mcp-corpus --ignore-scripts <the packages in SERVERS>
 *   npx tsx bench/data/collect-mcp-corpus.ts /tmp/mcp-corpus
 *
 * Each server is started over stdio with a throwaway HOME and placeholder credentials (none
 * of them needs the network to list its tools), sent `initialize`, `notifications/initialized`
 * and `tools/list` (following `nextCursor`), then killed. A server that does not answer in
 * 20 s is left out and reported.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

interface Server {
  readonly pkg: string
  readonly bin?: string
  readonly args?: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
}

const PLACEHOLDER = "placeholder-not-a-credential"

const SERVERS: ReadonlyArray<Server> = [
  { pkg: "@modelcontextprotocol/server-filesystem", args: ["{tmp}"] },
  { pkg: "@modelcontextprotocol/server-memory", env: { MEMORY_FILE_PATH: "{tmp}/memory.json" } },
  { pkg: "@modelcontextprotocol/server-everything", args: ["stdio"] },
  { pkg: "@modelcontextprotocol/server-sequential-thinking" },
  { pkg: "@modelcontextprotocol/server-github", env: { GITHUB_PERSONAL_ACCESS_TOKEN: PLACEHOLDER } },
  { pkg: "@modelcontextprotocol/server-puppeteer" },
  { pkg: "@modelcontextprotocol/server-brave-search", env: { BRAVE_API_KEY: PLACEHOLDER } },
  { pkg: "@modelcontextprotocol/server-slack", env: { SLACK_BOT_TOKEN: PLACEHOLDER, SLACK_TEAM_ID: "T000" } },
  { pkg: "@modelcontextprotocol/server-gitlab", env: { GITLAB_PERSONAL_ACCESS_TOKEN: PLACEHOLDER } },
  { pkg: "@modelcontextprotocol/server-google-maps", env: { GOOGLE_MAPS_API_KEY: PLACEHOLDER } },
  { pkg: "@modelcontextprotocol/server-postgres", args: ["postgresql://127.0.0.1:1/none"] },
  { pkg: "@modelcontextprotocol/server-everart", env: { EVERART_API_KEY: PLACEHOLDER } },
  {
    pkg: "@modelcontextprotocol/server-aws-kb-retrieval",
    env: { AWS_ACCESS_KEY_ID: PLACEHOLDER, AWS_SECRET_ACCESS_KEY: PLACEHOLDER, AWS_REGION: "us-east-1" }
  },
  { pkg: "@modelcontextprotocol/server-redis", args: ["redis://127.0.0.1:1"] },
  { pkg: "@playwright/mcp" },
  { pkg: "@upstash/context7-mcp" },
  { pkg: "@notionhq/notion-mcp-server", env: { NOTION_TOKEN: PLACEHOLDER } },
  { pkg: "firecrawl-mcp", env: { FIRECRAWL_API_KEY: PLACEHOLDER } },
  { pkg: "tavily-mcp", env: { TAVILY_API_KEY: PLACEHOLDER } },
  { pkg: "exa-mcp-server", env: { EXA_API_KEY: PLACEHOLDER } },
  { pkg: "@antv/mcp-server-chart" },
  { pkg: "chrome-devtools-mcp", bin: "chrome-devtools-mcp" },
  { pkg: "mcp-server-kubernetes" },
  { pkg: "@brave/brave-search-mcp-server", args: ["--transport", "stdio"], env: { BRAVE_API_KEY: PLACEHOLDER } },
  { pkg: "@wonderwhy-er/desktop-commander", bin: "desktop-commander" },
  { pkg: "@circleci/mcp-server-circleci", env: { CIRCLECI_TOKEN: PLACEHOLDER } },
  { pkg: "@supabase/mcp-server-supabase", args: ["--access-token", PLACEHOLDER] }
]

interface Tool {
  readonly name: string
  readonly description?: string
  readonly inputSchema?: unknown
  readonly annotations?: unknown
}

const listTools = (prefix: string, server: Server, home: string): Promise<{ version: string; tools: Array<Tool> }> =>
  new Promise((resolve, reject) => {
    const dir = join(prefix, "node_modules", server.pkg)
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      version: string
      bin: string | Record<string, string>
    }
    const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin[server.bin ?? Object.keys(manifest.bin)[0]!]!
    const fill = (s: string) => s.replaceAll("{tmp}", home)
    const child = spawn(process.execPath, [join(dir, bin), ...(server.args ?? []).map(fill)], {
      cwd: home,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        NODE_ENV: "production",
        DO_NOT_TRACK: "1",
        ...Object.fromEntries(Object.entries(server.env ?? {}).map(([k, v]) => [k, fill(v)]))
      },
      stdio: ["pipe", "pipe", "ignore"],
      detached: true
    })
    const tools: Array<Tool> = []
    let buffer = ""
    const timer = setTimeout(() => finish(new Error("no answer in 20 s")), 20_000)
    const finish = (error?: Error) => {
      clearTimeout(timer)
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {
        // already gone
      }
      if (error) reject(error)
      else resolve({ version: manifest.version, tools })
    }
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
    child.on("error", (error) => finish(error))
    child.on("exit", (code) => finish(new Error(`exited with ${code} before answering`)))
    child.stdin.on("error", () => undefined)
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      buffer += chunk
      let newline: number
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).trim()
        buffer = buffer.slice(newline + 1)
        if (!line.startsWith("{")) continue
        const message = JSON.parse(line) as {
          id?: number
          result?: { tools?: Array<Tool>; nextCursor?: string }
          error?: { message: string }
        }
        if (message.id === 1) {
          send({ jsonrpc: "2.0", method: "notifications/initialized" })
          send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} })
        } else if (message.id !== undefined && message.id >= 2) {
          if (message.error) return finish(new Error(message.error.message))
          tools.push(...(message.result?.tools ?? []))
          const cursor = message.result?.nextCursor
          if (cursor) send({ jsonrpc: "2.0", id: message.id + 1, method: "tools/list", params: { cursor } })
          else finish()
        }
      }
    })
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "tool-map-corpus", version: "0.1.0" }
      }
    })
  })

const main = async () => {
  const prefix = process.argv[2] ?? "/tmp/mcp-corpus"
  const sources: Array<{ package: string; version: string; tools: number }> = []
  const failures: Array<{ package: string; reason: string }> = []
  const out: Array<Tool & { readonly server: string }> = []
  for (const server of SERVERS) {
    const home = mkdtempSync(join(tmpdir(), "mcp-home-"))
    try {
      const { version, tools } = await listTools(prefix, server, home)
      sources.push({ package: server.pkg, version, tools: tools.length })
      for (const tool of tools) {
        out.push({
          server: server.pkg,
          name: tool.name,
          description: tool.description ?? "",
          inputSchema: tool.inputSchema ?? { type: "object" },
          ...(tool.annotations === undefined ? {} : { annotations: tool.annotations })
        })
      }
      console.error(`${server.pkg}@${version}: ${tools.length} tools`)
    } catch (error) {
      failures.push({ package: server.pkg, reason: (error as Error).message })
      console.error(`${server.pkg}: skipped (${(error as Error).message})`)
    }
  }
  const target = join(dirname(fileURLToPath(import.meta.url)), "mcp-tool-schemas.json")
  writeFileSync(
    target,
    `${
      JSON.stringify(
        {
          description:
            "tools/list results of MCP servers published on npm, collected by bench/data/collect-mcp-corpus.ts",
          collectedAt: new Date().toISOString().slice(0, 10),
          sources,
          skipped: failures,
          tools: out
        },
        null,
        1
      )
    }\n`
  )
  console.error(`${out.length} tools from ${sources.length} servers written to ${target}`)
}

void main()
