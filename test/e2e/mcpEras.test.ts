/**
 * Issue 31, done when: the built `tool-map mcp` answers both eras of MCP on one stdio command and
 * one HTTP endpoint. The official SDK v2 client pinned to 2026-07-28 and the SDK v1 client
 * (2025-11-25) each list and call the inventory server's tools; through the gateway each loads a
 * tool of a 2025-era downstream server (the reference memory server, SDK v1) and of a 2026-era one
 * (test/mcp/fixtures/modern.mjs, SDK v2), receives the list change and calls them; the high-risk
 * gate asks in both eras (2026: an `input_required` answer) and refuses with a code a client that
 * cannot ask.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { BIN, makeTempDir, requireBuiltCli, runCli, writeExecutable } from "../support/cli.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
const ENTRY = ["tools_ls", "tools_load", "tools_unload", "tools_call", "tools_find", "tools_route", "skills_find", "skills_route"]
const INVENTORY_TOOLS = ["which", "inventory_query", "inventory_refresh"]
const RISKY = "mcp__memory__delete_entities"

let dir: string
let remove: () => void
let env: Record<string, string>
let bin: string

beforeAll(() => requireBuiltCli())
beforeEach(() => {
  ;({ dir, remove } = makeTempDir("tool-map-e2e-eras-"))
  const home = path.join(dir, "home")
  bin = path.join(dir, "bin")
  fs.mkdirSync(home)
  writeExecutable(path.join(bin, "hello-tool"))
  env = { HOME: home, PATH: `${bin}:${path.dirname(process.execPath)}`, PLUGIN_DATA: path.join(dir, "data"), LANG: "C.UTF-8" }
})
afterEach(() => remove())

type AnyResult = { readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }> }
const textOf = (result: unknown) => ((result as AnyResult).content ?? []).map((part) => part.text ?? "").join("\n")
const namesOf = (result: { readonly tools: ReadonlyArray<{ readonly name: string }> }) => result.tools.map((tool) => tool.name)

/** What an elicitation answers: yes, no, or (none) the client declares no elicitation at all. */
type Answer = "yes" | "no" | "none"

/** The questions a client was asked (elicitation messages). */
interface Asked {
  readonly questions: Array<string>
}

/** An SDK v2 client pinned to 2026-07-28 (no fallback to `initialize`). */
const modernClient = (name: string, answer: Answer, onListChanged: (names: ReadonlyArray<string>) => void = () => {}) => {
  const asked: Asked = { questions: [] }
  const client = new ModernClient(
    { name, version: "1.0.0" },
    {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      ...(answer === "none" ? {} : { capabilities: { elicitation: { form: {} } } }),
      listChanged: { tools: { onChanged: (_error, tools) => onListChanged((tools ?? []).map((tool) => tool.name)) } }
    }
  )
  if (answer !== "none") {
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.questions.push(request.params.message)
      return { action: "accept", content: { confirm: answer === "yes" } }
    })
  }
  return { client, asked }
}

/** An SDK v1 client (2025-11-25, `initialize`). */
const legacyClient = (name: string, answer: Answer, onListChanged: () => void = () => {}) => {
  const asked: Asked = { questions: [] }
  const client = new Client({ name, version: "1.0.0" }, answer === "none" ? {} : { capabilities: { elicitation: { form: {} } } })
  if (answer !== "none") {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.questions.push(request.params.message)
      return { action: "accept", content: { confirm: answer === "yes" } }
    })
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => onListChanged())
  return { client, asked }
}

const stdioArgs = (extra: ReadonlyArray<string> = []) => ({ command: process.execPath, args: [BIN, "mcp", ...extra], env, cwd: env.HOME!, stderr: "pipe" as const })

/** The HTTP servers a test started, stopped after it. */
let servers: Array<ChildProcess> = []
afterEach(() => {
  for (const server of servers) server.kill("SIGTERM")
  servers = []
})

/** Starts `tool-map mcp ARGS --http 0`: the URL of its endpoint, from its stderr. */
const listening = (args: ReadonlyArray<string>) => {
  const server = spawn(process.execPath, [BIN, "mcp", ...args, "--http", "0"], { env, cwd: env.HOME!, stdio: ["ignore", "pipe", "pipe"] })
  servers.push(server)
  let stderr = ""
  return new Promise<URL>((resolve, reject) => {
    server.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      const match = /^tool-map mcp: Streamable HTTP on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(stderr)
      if (match !== null) resolve(new URL(match[1]!))
    })
    server.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)))
  })
}

/** Resolves once `check` holds, polled every 20 ms (fails after 10 s). */
const eventually = async (check: () => boolean, what: string) => {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 10_000) throw new Error(`not within 10 s: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe("tool-map mcp, the inventory server: both eras", () => {
  const which = "hello-tool runs " // the rest: its path under the test's bin dir

  /** Both clients, connected: each lists the inventory's tools and gets the same answer from `which`. */
  const bothListAndCall = async (modern: ModernClient, legacy: Client) => {
    try {
      expect(modern.getProtocolEra()).toBe("modern")
      expect(legacy.getServerVersion()?.name).toBe("tool-map")
      expect(namesOf(await modern.listTools())).toEqual(INVENTORY_TOOLS)
      expect(namesOf(await legacy.listTools())).toEqual(INVENTORY_TOOLS)
      const expected = `${which}${path.join(bin, "hello-tool")}.`
      expect(textOf(await modern.callTool({ name: "which", arguments: { name: "hello-tool" } }))).toBe(expected)
      expect(textOf(await legacy.callTool({ name: "which", arguments: { name: "hello-tool" } }))).toBe(expected)
      // The resources too: the same list, the same summary.
      const uris = (await legacy.listResources()).resources.map((resource) => resource.uri)
      expect((await modern.listResources()).resources.map((resource) => resource.uri)).toEqual(uris)
      expect(uris).toContain("tool-map://inventory/summary")
      const summary = (await legacy.readResource({ uri: "tool-map://inventory/summary" })).contents
      expect((await modern.readResource({ uri: "tool-map://inventory/summary" })).contents).toEqual(summary)
    } finally {
      await modern.close()
      await legacy.close()
    }
  }

  it("on stdio: the SDK v2 client (2026-07-28) and the SDK v1 client (2025-11-25) list and call its tools", async () => {
    const modern = modernClient("eras-modern", "none").client
    await modern.connect(new ModernStdioTransport(stdioArgs()))
    const legacy = legacyClient("eras-legacy", "none").client
    await legacy.connect(new StdioClientTransport(stdioArgs()))
    await bothListAndCall(modern, legacy)
  })

  it("on one HTTP endpoint: the SDK v2 client (2026-07-28, no session) and the SDK v1 client (a session) list and call its tools", async () => {
    const url = await listening([])
    const modern = modernClient("eras-modern-http", "none").client
    await modern.connect(new ModernHttpTransport(url))
    const legacy = legacyClient("eras-legacy-http", "none").client
    await legacy.connect(new StreamableHTTPClientTransport(url))
    await bothListAndCall(modern, legacy)
  })
})

describe("tool-map mcp --servers FILE, the gateway: both eras", () => {
  /** The downstream servers: the reference memory server (SDK v1, 2025) and modern.mjs (SDK v2, 2026-07-28). */
  const serversFile = () => {
    const file = path.join(dir, "servers.json")
    const memory = path.join(ROOT, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
    fs.writeFileSync(file, JSON.stringify({
      mcpServers: {
        memory: { command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } },
        modern: { command: process.execPath, args: [path.join(ROOT, "test", "mcp", "fixtures", "modern.mjs")] }
      }
    }))
    return file
  }

  const LOADED = ["mcp__modern__echo", "mcp__memory__read_graph"]

  it("the SDK v2 client (2026-07-28): loads a tool of each downstream server, gets the change on its listen stream, calls them, unloads; a downstream list change reaches it", async () => {
    const lists: Array<ReadonlyArray<string>> = []
    const { client } = modernClient("eras-modern-gateway", "none", (names) => lists.push(names))
    await client.connect(new ModernStdioTransport(stdioArgs(["--servers", serversFile()])))
    try {
      expect(client.getProtocolEra()).toBe("modern")
      expect(namesOf(await client.listTools())).toEqual(ENTRY)
      const loaded = textOf(await client.callTool({ name: "tools_load", arguments: { targets: LOADED } }))
      expect(loaded.split("\n")[0]).toMatch(/^Loaded 2 tool\(s\), ~\d+ tok; callable from your next step:$/)
      await eventually(() => lists.some((names) => LOADED.every((name) => names.includes(name))), "the list change after tools_load")
      expect(lists.at(-1)).toEqual([...ENTRY, ...LOADED])
      expect(textOf(await client.callTool({ name: "mcp__modern__echo", arguments: { text: "from the 2026 era" } }))).toBe("from the 2026 era")
      expect(JSON.parse(textOf(await client.callTool({ name: "mcp__memory__read_graph", arguments: {} })))).toEqual({ entities: [], relations: [] })
      const before = lists.length
      await client.callTool({ name: "tools_unload", arguments: { targets: ["mcp__modern__echo"] } })
      await eventually(() => lists.length > before && !lists.at(-1)!.includes("mcp__modern__echo"), "the list change after tools_unload")
      expect(lists.at(-1)).toEqual([...ENTRY, "mcp__memory__read_graph"])
      // A downstream list change: the v2 server's group loaded whole, its add_tool adds late_tool.
      await client.callTool({ name: "tools_load", arguments: { targets: ["/mcp/modern"] } })
      expect(textOf(await client.callTool({ name: "mcp__modern__add_tool", arguments: {} }))).toBe("added")
      await eventually(() => lists.at(-1)!.includes("mcp__modern__late_tool"), "the list change after the downstream server's")
      expect(textOf(await client.callTool({ name: "mcp__modern__late_tool", arguments: {} }))).toBe("late")
    } finally {
      await client.close()
    }
  })

  it("the SDK v1 client (2025-11-25): the same loads, list changes and calls", async () => {
    let changes = 0
    const { client } = legacyClient("eras-legacy-gateway", "none", () => changes++)
    await client.connect(new StdioClientTransport(stdioArgs(["--servers", serversFile()])))
    try {
      expect(namesOf(await client.listTools())).toEqual(ENTRY)
      const loaded = textOf(await client.callTool({ name: "tools_load", arguments: { targets: LOADED } }))
      expect(loaded.split("\n")[0]).toMatch(/^Loaded 2 tool\(s\), ~\d+ tok; callable from your next step:$/)
      await eventually(() => changes > 0, "list_changed after tools_load")
      expect(namesOf(await client.listTools())).toEqual([...ENTRY, ...LOADED])
      expect(textOf(await client.callTool({ name: "mcp__modern__echo", arguments: { text: "from the 2025 era" } }))).toBe("from the 2025 era")
      expect(JSON.parse(textOf(await client.callTool({ name: "mcp__memory__read_graph", arguments: {} })))).toEqual({ entities: [], relations: [] })
      await client.callTool({ name: "tools_load", arguments: { targets: ["/mcp/modern"] } })
      const before = changes
      expect(textOf(await client.callTool({ name: "mcp__modern__add_tool", arguments: {} }))).toBe("added")
      await eventually(() => changes > before, "list_changed after the downstream server's")
      expect(namesOf(await client.listTools())).toContain("mcp__modern__late_tool")
      expect(textOf(await client.callTool({ name: "mcp__modern__late_tool", arguments: {} }))).toBe("late")
    } finally {
      await client.close()
    }
  })

  it("on one HTTP endpoint: the SDK v2 client (listen stream over SSE, the gate's question as input_required) and the SDK v1 client", async () => {
    const url = await listening(["--servers", serversFile()])
    const lists: Array<ReadonlyArray<string>> = []
    const modern = modernClient("eras-modern-http-gateway", "yes", (names) => lists.push(names))
    await modern.client.connect(new ModernHttpTransport(url))
    let changes = 0
    const legacy = legacyClient("eras-legacy-http-gateway", "yes", () => changes++)
    await legacy.client.connect(new StreamableHTTPClientTransport(url))
    try {
      expect(modern.client.getProtocolEra()).toBe("modern")
      for (const client of [modern.client, legacy.client]) {
        const loaded = textOf(await client.callTool({ name: "tools_load", arguments: { targets: ["mcp__modern__echo", RISKY] } }))
        expect(loaded.split("\n").slice(0, 3)).toEqual([expect.stringMatching(/^Loaded 2 tool\(s\), ~\d+ tok; callable from your next step:$/), "  mcp__modern__echo", `  ${RISKY}`])
        expect(textOf(await client.callTool({ name: "mcp__modern__echo", arguments: { text: "over HTTP" } }))).toBe("over HTTP")
      }
      await eventually(() => lists.some((names) => names.includes(RISKY)) && changes > 0, "both clients' list changes")
      expect(lists.at(-1)).toEqual([...ENTRY, "mcp__modern__echo", RISKY])
      expect(namesOf(await legacy.client.listTools())).toEqual([...ENTRY, "mcp__modern__echo", RISKY])
      expect([modern.asked.questions.length, legacy.asked.questions.length]).toEqual([1, 1])
    } finally {
      await modern.client.close()
      await legacy.client.close()
    }
  })

  describe("the high-risk gate", () => {
    const QUESTION = `Let the agent use the high-risk tool ${RISKY}?`
    const refusedWithCode = (text: string) => {
      const lines = text.split("\n")
      expect(lines.slice(0, 2)).toEqual(["Nothing new loaded.", `${RISKY} is high risk and the risk gate MCP elicitation did not approve it; not loaded`])
      expect(lines[2]).toMatch(
        new RegExp(`^${RISKY} was not loaded: this MCP client cannot ask the user to confirm a high-risk tool \\(it declared no elicitation capability\\)\\. Ask the user to run \`tool-map catalog approve [A-Z2-9]{4}-[A-Z2-9]{4}\` in their terminal \\(the code expires in 10 minutes\\), then call tools_load again\\.$`)
      )
      expect(lines).toHaveLength(3)
    }
    const refusedNo = [
      "Nothing new loaded.",
      `${RISKY} is high risk and the risk gate MCP elicitation did not approve it; not loaded`,
      `${RISKY} was not loaded: the user answered no`
    ].join("\n")

    /** A connected client of one era that answers the gate's question `answer`, and the questions it was asked. */
    type Connect = (name: string, answer: Answer, file: string) => Promise<{
      readonly client: { callTool: (request: { name: string; arguments: Record<string, unknown> }) => Promise<unknown>; listTools: () => Promise<{ tools: ReadonlyArray<{ name: string }> }>; close: () => Promise<void> }
      readonly asked: Asked
    }>

    /** Each answer by a client of its own (an agent of its own): yes loads, no refuses, no way to ask refuses with a code. */
    const gateAnswers = async (era: string, connect: Connect) => {
      const file = serversFile()
      for (const answer of ["yes", "no", "none"] as const) {
        const { client, asked } = await connect(`eras-${era}-${answer}`, answer, file)
        try {
          const text = textOf(await client.callTool({ name: "tools_load", arguments: { targets: [RISKY] } }))
          if (answer === "yes") {
            expect(text.split("\n")[0]).toMatch(/^Loaded 1 tool\(s\), ~\d+ tok; callable from your next step:$/)
            expect(namesOf(await client.listTools())).toEqual([...ENTRY, RISKY])
          }
          if (answer === "no") expect(text).toBe(refusedNo)
          if (answer === "none") refusedWithCode(text)
          expect(asked.questions.map((question) => question.split("\n")[0])).toEqual(answer === "none" ? [] : [QUESTION])
        } finally {
          await client.close()
        }
      }
    }

    it("2026-07-28: input_required answered yes loads, no refuses, a client that cannot answer is refused with a code", () =>
      gateAnswers("modern", async (name, answer, file) => {
        const connected = modernClient(name, answer)
        await connected.client.connect(new ModernStdioTransport(stdioArgs(["--servers", file])))
        return connected
      }))

    type Round = { result: { resultType: string; content?: Array<{ text: string }>; inputRequests?: Record<string, unknown>; requestState?: string } }
    /** The gateway on stdio, spoken to as a 2026-07-28 client line by line: `load` calls an entry tool, `cancel` cancels a request by id. */
    const rawModernGateway = () => {
      const child = spawn(process.execPath, [BIN, "mcp", "--servers", serversFile()], { env, cwd: env.HOME!, stdio: ["pipe", "pipe", "pipe"] })
      servers.push(child)
      const waiting = new Map<number, (message: unknown) => void>()
      const answered = new Set<number>()
      let buffered = ""
      child.stdout!.on("data", (chunk: Buffer) => {
        buffered += chunk.toString()
        for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
          const message = JSON.parse(buffered.slice(0, end)) as { id?: number }
          buffered = buffered.slice(end + 1)
          if (message.id === undefined) continue
          answered.add(message.id)
          waiting.get(message.id)?.(message)
        }
      })
      let nextId = 1
      const load = (targets: ReadonlyArray<string>, capabilities: object, extra: object = {}, tool = "tools_load", id = nextId++) =>
        new Promise<Round>((resolve) => {
          waiting.set(id, (message) => resolve(message as Round))
          child.stdin!.write(`${JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: {
              name: tool,
              arguments: { targets },
              ...extra,
              _meta: {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { name: "burn", version: "1" },
                "io.modelcontextprotocol/clientCapabilities": capabilities
              }
            }
          })}\n`)
        })
      const cancel = (requestId: number) =>
        child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "test" } })}\n`)
      return { load, cancel, nextId: () => nextId++, answered }
    }

    it("2026-07-28: a terminal approval survives a round a later tool's question interrupts, and is spent once by the load it answers", async () => {
      const second = "mcp__memory__delete_relations"
      const { load } = rawModernGateway()
      const refused = await load([RISKY], {})
      const code = /tool-map catalog approve ([A-Z2-9]{4}-[A-Z2-9]{4})/.exec(refused.result.content![0]!.text)![1]!
      expect(runCli(["catalog", "approve", code, "--yes"], env).status).toBe(0)
      const asking = { elicitation: { form: {} } }
      const first = await load([RISKY, second], asking)
      expect(first.result.resultType).toBe("input_required")
      expect(Object.values(first.result.inputRequests!).map((question) => (question as { params: { message: string } }).params.message.split("\n")[0])).toEqual([
        `Let the agent use the high-risk tool ${second}?`
      ])
      const [key] = Object.keys(first.result.inputRequests!)
      const answered = await load([RISKY, second], asking, { inputResponses: { [key!]: { action: "accept", content: { confirm: true } } }, requestState: first.result.requestState })
      expect(answered.result.content![0]!.text.split("\n").slice(0, 3)).toEqual([expect.stringMatching(/^Loaded 2 tool\(s\), ~\d+ tok; callable from your next step:$/), `  ${RISKY}`, `  ${second}`])
      // Spent: unloaded, the same agent's next load of it needs a person again.
      await load([RISKY], {}, {}, "tools_unload")
      refusedWithCode((await load([RISKY], {})).result.content![0]!.text)
    })

    it("2026-07-28: a load the client cancels after it committed has spent its approval; two loads at once share none", async () => {
      const { load, cancel, nextId, answered } = rawModernGateway()
      const approved = async () => {
        const refused = await load([RISKY], {})
        const code = /tool-map catalog approve ([A-Z2-9]{4}-[A-Z2-9]{4})/.exec(refused.result.content![0]!.text)![1]!
        expect(runCli(["catalog", "approve", code, "--yes"], env).status).toBe(0)
      }
      await approved()
      // Loaded and saved, then its answer waits for the client's re-list: the client cancels it there.
      const id = nextId()
      void load([RISKY], {}, {}, "tools_load", id)
      await new Promise((resolve) => setTimeout(resolve, 1000))
      expect(answered.has(id)).toBe(false)
      cancel(id)
      expect((await load([RISKY], {}, {}, "tools_unload")).result.content![0]!.text.split("\n").slice(0, 2)).toEqual(["Unloaded 1 tool(s):", `  ${RISKY}`])
      refusedWithCode((await load([RISKY], {})).result.content![0]!.text)
      // One approval, two loads at once: one loads, the other is refused with a code.
      await approved()
      const both = await Promise.all([load([RISKY], {}), load([RISKY], {})])
      const firstLines = both.map((round) => round.result.content![0]!.text.split("\n")[0]!)
      expect(firstLines.filter((line) => /^Loaded 1 tool\(s\), ~\d+ tok; callable from your next step:$/.test(line))).toHaveLength(1)
      expect(firstLines.filter((line) => line === "Nothing new loaded.")).toHaveLength(1)
    })

    it("2025-11-25: elicitation answered yes loads, no refuses, a client that cannot elicit is refused with a code", () =>
      gateAnswers("legacy", async (name, answer, file) => {
        const connected = legacyClient(name, answer)
        await connected.client.connect(new StdioClientTransport(stdioArgs(["--servers", file])))
        return connected
      }))
  })
})
