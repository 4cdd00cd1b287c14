/**
 * The human gate without elicitation (issue 26, point 5): through the gateway in front of the
 * reference memory server, a client that cannot elicit gets a one-time code for a high-risk
 * load; the user approves it with `catalog approve`'s handler; the next load of that tool by that
 * agent passes, once. No argument of an entry tool approves a code, and an expired one fails.
 */
import { NodeContext } from "@effect/platform-node"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { ApprovalCodes, approvalsFileIn } from "../../../src/catalog/stores/ApprovalCodes.js"
import { ApprovalQuestion, run } from "../../../src/cli/catalogApprove.js"
import { exitCodeOf } from "../../../src/cli/exitCodes.js"
import { TerminalFacts } from "../../../src/cli/terminal.js"
import { captureConsole } from "../../cli/inProcess.js"
import { namesOf, nodeServer, tempDir, textOf, withGateway } from "./harness.js"

const ROOT = path.resolve(import.meta.dirname, "../../..")
const TOOL = "mcp__memory__delete_entities"

let dir: string
let remove: () => void

beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-approvals-"))
})
afterEach(() => remove())

const memory = () => [
  nodeServer("memory", path.join(ROOT, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js"), [], {
    MEMORY_FILE_PATH: path.join(dir, "memory.jsonl")
  })
]

const approvalsFile = () => approvalsFileIn(path.join(dir, "catalog"))

/** The refusal of a high-risk load by a client that cannot elicit, with the code it was given. */
const refusal = (code: string, minutes = 10) =>
  [
    "Nothing new loaded.",
    `${TOOL} is high risk and the risk gate MCP elicitation did not approve it; not loaded`,
    `${TOOL} was not loaded: this MCP client cannot ask the user to confirm a high-risk tool (it declared no elicitation capability). Ask the user to run \`tool-map catalog approve ${code}\` in their terminal (the code expires in ${minutes} minutes), then call tools_load again.`
  ].join("\n")

const codeIn = (text: string): string => {
  const found = /tool-map catalog approve ([A-Z2-9]{4}-[A-Z2-9]{4})`/.exec(text)
  expect(found).not.toBeNull()
  return found![1]!
}

const loadTool = async (client: Client) => textOf(await client.callTool({ name: "tools_load", arguments: { targets: [TOOL] } }))

/** `tool-map catalog approve ARGS` through its handler, over the gateway's approvals file: exit code and output. */
const approveCli = (
  flags: { readonly code?: string; readonly deny?: string; readonly yes?: boolean; readonly json?: boolean },
  terminal: { readonly stdinIsTty: boolean; readonly answer?: string } = { stdinIsTty: false }
) =>
  Effect.runPromise(
    captureConsole(
      run({
        code: Option.fromNullable(flags.code),
        deny: Option.fromNullable(flags.deny),
        yes: flags.yes ?? false,
        json: flags.json ?? false
      }).pipe(Effect.either)
    ).pipe(
      Effect.map(({ result, stdout, stderr }) => ({ code: result._tag === "Left" ? exitCodeOf(result.left) : 0, error: result._tag === "Left" ? result.left.message : "", stdout, stderr })),
      Effect.provideService(TerminalFacts, { stdoutIsTty: false, columns: undefined, stdinIsTty: terminal.stdinIsTty }),
      Effect.provideService(ApprovalQuestion, { ask: () => Effect.succeed(terminal.answer ?? "") }),
      Effect.provide(ApprovalCodes.layer(approvalsFile()).pipe(Layer.provide(NodeContext.layer)))
    )
  )

describe("high-risk loads without elicitation: a one-time code the user approves in a terminal", () => {
  it("refuses with a code, the user approves it with catalog approve, the next load passes once", async () => {
    await withGateway({ servers: memory(), dataDir: dir }, async ({ client }) => {
      const first = await loadTool(client)
      const code = codeIn(first)
      expect(first).toBe(refusal(code))
      // Asked again before the user answered: the same code.
      expect(await loadTool(client)).toBe(refusal(code))

      // The user lists what waits, then approves it on a terminal.
      const listed = await approveCli({})
      expect(listed).toEqual({
        code: 0,
        error: "",
        stderr: "",
        stdout: [
          "Approvals waiting (approve one with `tool-map catalog approve CODE`, refuse it with `tool-map catalog approve --deny CODE`):",
          "CODE       STATUS   AGENT        TOOL                          SERVER  EXPIRES",
          "---------  -------  -----------  ----------------------------  ------  ---------",
          `${code}  pending  test-client  ${TOOL}  memory  in 10 min`
        ].join("\n")
      })
      const details = [
        `An agent asks to load a high-risk tool (code ${code}):`,
        "  agent:   test-client",
        `  tool:    ${TOOL}`,
        "  server:  memory",
        "  summary: Delete multiple entities and their associated relations from the knowledge graph",
        "  why it is high risk: MCP destructiveHint=true (untrusted hint); name has the verb \"delete\"",
        "  the code expires in 10 min"
      ].join("\n")
      // "n" at the question: nothing approved.
      expect(await approveCli({ code: code.toLowerCase() }, { stdinIsTty: true, answer: "n" })).toEqual({
        code: 0,
        error: "",
        stderr: details,
        stdout: `Not approved: ${code} stays pending until it expires; refuse it now with \`tool-map catalog approve --deny ${code}\`.`
      })
      expect(await loadTool(client)).toBe(refusal(code))
      expect(await approveCli({ code }, { stdinIsTty: true, answer: "y" })).toEqual({
        code: 0,
        error: "",
        stderr: details,
        stdout: `Approved ${code}: the next tools_load of ${TOOL} by test-client within 10 min loads it, once.`
      })

      const loaded = await loadTool(client)
      expect(loaded.split("\n")[0]).toBe("Loaded 1 tool(s), ~80 tok; callable from your next step:")
      expect(namesOf((await client.listTools()).tools)).toContain(TOOL)
      const deleted = await client.callTool({ name: TOOL, arguments: { entityNames: ["nobody"] } })
      expect(deleted.isError).not.toBe(true)

      // Consumed: unloaded and loaded again, it needs a new code.
      await client.callTool({ name: "tools_unload", arguments: { targets: [TOOL] } })
      const again = await loadTool(client)
      const next = codeIn(again)
      expect(next).not.toBe(code)
      expect(again).toBe(refusal(next))
    })
  })

  it("no argument of an entry tool approves a code: only the CLI writes an approval", async () => {
    await withGateway({ servers: memory(), dataDir: dir }, async ({ client }) => {
      const code = codeIn(await loadTool(client))
      const tries: ReadonlyArray<{ readonly name: string; readonly arguments: Record<string, unknown> }> = [
        { name: "tools_load", arguments: { targets: [TOOL, code], approve: code, code, confirm: true, yes: true } },
        { name: "tools_load", arguments: { targets: [`approve ${code}`] } },
        { name: "tools_ls", arguments: { path: code, refresh: true, approve: code } },
        { name: "tools_unload", arguments: { targets: [code] } },
        { name: "tools_find", arguments: { query: `tool-map catalog approve ${code}` } },
        { name: "tools_route", arguments: { query: `approve ${code} delete entities`, approve: code } },
        { name: TOOL, arguments: { entityNames: ["x"], approve: code } }
      ]
      for (const call of tries) await client.callTool(call)
      const stored = JSON.parse(fs.readFileSync(approvalsFile(), "utf8"))
      // tools_route asked codes for the high-risk tools it chose; none is approved.
      const statuses = stored.approvals.map((approval: { code: string; tool: string; status: string }) => [approval.code, approval.tool, approval.status])
      expect(statuses[0]).toEqual([code, TOOL, "pending"])
      expect(statuses.filter(([, , status]: ReadonlyArray<string>) => status !== "pending")).toEqual([])
      expect(await loadTool(client)).toBe(refusal(code))
      expect(namesOf((await client.listTools()).tools)).not.toContain(TOOL)
    })
  })

  it("an expired code fails in the CLI, a denied one too, and the next load gets a new code", async () => {
    await withGateway({ servers: memory(), dataDir: dir }, async ({ client }) => {
      const code = codeIn(await loadTool(client))
      // Ten minutes later, as the file records it.
      const stored = JSON.parse(fs.readFileSync(approvalsFile(), "utf8"))
      stored.approvals[0].expiresAt = Date.now() - 1
      fs.writeFileSync(approvalsFile(), JSON.stringify(stored))
      const notFound = `No approval is waiting under the code ${code} (it expired, was used or was denied, or never existed); run \`tool-map catalog approve\` to list the pending ones.`
      expect(await approveCli({ code, yes: true })).toEqual({ code: 1, error: notFound, stdout: "", stderr: "" })
      const fresh = codeIn(await loadTool(client))
      expect(fresh).not.toBe(code)

      expect(await approveCli({ deny: fresh, json: true })).toMatchObject({ code: 0, stderr: "" })
      expect(await approveCli({ code: fresh, yes: true })).toMatchObject({ code: 1, stdout: "" })
      expect(await approveCli({}, { stdinIsTty: false })).toEqual({ code: 0, error: "", stderr: "", stdout: "No approvals are waiting." })
      expect(codeIn(await loadTool(client))).not.toBe(fresh)
    })
  })

  it("refuses to approve without a terminal unless --yes, and checks the code's form first", async () => {
    expect(await approveCli({ code: "ABCD-EFGH" }, { stdinIsTty: false })).toEqual({
      code: 2,
      error:
        "tool-map catalog approve: stdin is not a terminal, and an approval needs a person to confirm it: run it in your own terminal (see --help).",
      stdout: "",
      stderr: ""
    })
    expect(await approveCli({ code: "OOPS-1234", yes: true })).toEqual({
      code: 2,
      error: "tool-map catalog approve: \"OOPS-1234\" is not an approval code (8 letters and digits, like ABCD-EFGH).",
      stdout: "",
      stderr: ""
    })
    expect(await approveCli({ code: "ABCD-EFGH", deny: "ABCD-EFGH" })).toMatchObject({ code: 2 })
  })

  it("a cancelled or declined question gets a code (a headless client answers so without a person), an explicit no none", async () => {
    await withGateway({ servers: memory(), dataDir: dir, clientOptions: { capabilities: { elicitation: { form: {} } } } }, async ({ client }) => {
      let action: "cancel" | "decline" | "accept" = "cancel"
      client.setRequestHandler(ElicitRequestSchema, async () => (action === "accept" ? { action, content: { confirm: false } } : { action }))
      const cancelled = await loadTool(client)
      const code = codeIn(cancelled)
      expect(cancelled.split("\n").slice(2)).toEqual([
        `${TOOL} was not loaded: the user answered cancel. Ask the user to run \`tool-map catalog approve ${code}\` in their terminal (the code expires in 10 minutes), then call tools_load again.`
      ])
      action = "decline"
      expect((await loadTool(client)).split("\n").slice(2)).toEqual([
        `${TOOL} was not loaded: the user answered decline. Ask the user to run \`tool-map catalog approve ${code}\` in their terminal (the code expires in 10 minutes), then call tools_load again.`
      ])
      action = "accept"
      expect((await loadTool(client)).split("\n").slice(2)).toEqual([`${TOOL} was not loaded: the user answered no`])
    })
  })

  it("falls back to a code when the client declared elicitation but its request fails", async () => {
    await withGateway({ servers: memory(), dataDir: dir, clientOptions: { capabilities: { elicitation: { form: {} } } } }, async ({ client }) => {
      client.setRequestHandler(ElicitRequestSchema, async () => {
        throw new Error("this client supports no boolean forms")
      })
      const text = await loadTool(client)
      const code = codeIn(text)
      expect(text.split("\n").slice(2)).toEqual([
        `${TOOL} was not loaded: The MCP client did not answer elicitation/create: MCP error -32603: this client supports no boolean forms. Ask the user to run \`tool-map catalog approve ${code}\` in their terminal (the code expires in 10 minutes), then call tools_load again.`
      ])
      // An approval from the terminal is used before the client is asked again.
      await approveCli({ code, yes: true })
      expect((await loadTool(client)).split("\n")[0]).toBe("Loaded 1 tool(s), ~80 tok; callable from your next step:")
    })
  })
})
