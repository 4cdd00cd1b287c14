/**
 * Accepting a changed tool held back (issue 27, point 17): when the change made it high risk, a
 * load of its group does not accept it (a group's load never asks the risk gate), a load naming
 * it asks the gate, and only a person's yes accepts the change; a load refused whole accepts
 * nothing.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { ApprovalCodes, approvalsFileIn } from "../../../src/catalog/stores/ApprovalCodes.js"
import { fixture, type GatewaySession, namesOf, tempDir, textOf, withGateway } from "./harness.js"

const ENTRY = ["tools_ls", "tools_load", "tools_unload", "tools_call", "tools_find", "tools_route", "skills_find", "skills_route"]
const TOOL = "mcp__riskypull__lookup"

let dir: string
let remove: () => void

beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-held-"))
})
afterEach(() => remove())

const approve = (code: string) =>
  Effect.runPromise(Effect.flatMap(ApprovalCodes, (codes) => codes.approve(code)).pipe(
    Effect.provide(ApprovalCodes.layer(approvalsFileIn(path.join(dir, "catalog")))),
    Effect.provide(NodeContext.layer)
  ))

/**
 * Loads TOOL and the swap tool and calls the swap, which makes TOOL high risk (held back until a
 * load accepts it); gives the load of one target and its answer's text.
 */
const heldBackAfterSwap = async ({ client, nextListChanged }: GatewaySession) => {
  const load = async (target: string) => textOf(await client.callTool({ name: "tools_load", arguments: { targets: [target] } }))
  await load(TOOL)
  await load("mcp__riskypull__swap")
  const changed = nextListChanged()
  await client.callTool({ name: "mcp__riskypull__swap", arguments: {} })
  await changed
  return load
}

describe("accepting a held-back tool", () => {
  it("that became high risk: only a load naming it that a person approved accepts it", async () => {
    await withGateway({ servers: [fixture("riskypull", "riskypull.mjs")], dataDir: dir }, async (session) => {
      const load = await heldBackAfterSwap(session)
      const { client } = session
      const held = {
        content: [{
          type: "text",
          text:
            `${TOOL} changed since it was loaded (annotations) and is held back until it is loaded again: check it (tools_ls on its path), then tools_load it to accept the change.`
        }],
        isError: true
      }
      expect(await client.callTool({ name: TOOL, arguments: { word: "a" } })).toEqual(held)
      // Its group: no gate is asked, so nothing is accepted.
      expect(await load("riskypull")).not.toContain("Accepted")
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, "mcp__riskypull__swap"])
      // By name: the gate asks for a person; without one the change stays held back.
      const refused = await load(TOOL)
      expect(refused).not.toContain("Accepted")
      const code = /tool-map catalog approve ([A-Z2-9]{4}-[A-Z2-9]{4})`/.exec(refused)?.[1] ?? ""
      expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/)
      expect(await client.callTool({ name: "tools_call", arguments: { name: TOOL, arguments: { word: "a" } } })).toEqual(held)
      await approve(code)
      expect((await load(TOOL)).split("\n")).toContain(`Accepted the changed definition of ${TOOL} (annotations).`)
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, TOOL, "mcp__riskypull__swap"])
      expect(await client.callTool({ name: TOOL, arguments: { word: "a" } })).toEqual({ content: [{ type: "text", text: "found" }] })
    })
  })

  it("the gate's refusals are the request's own: a concurrent load of the same agent neither sees nor clears them", async () => {
    await withGateway({ servers: [fixture("riskypull", "riskypull.mjs")], dataDir: dir }, async (session) => {
      const load = await heldBackAfterSwap(session)
      const { client } = session
      // Both at once: the refusal of TOOL (now high risk, no person) is in its own answer only, and accepts nothing.
      const [refused, other] = await Promise.all([load(TOOL), load("mcp__riskypull__swap")])
      const refusal = refused.split("\n").filter((line) => line.startsWith(`${TOOL} was not loaded: `))
      expect(refusal).toHaveLength(1)
      expect(refused).not.toContain("Accepted")
      expect(other.split("\n").filter((line) => line.includes(TOOL))).toEqual([])
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, "mcp__riskypull__swap"])
    })
  })

  it("a load refused whole (here by the load budget) accepts nothing", async () => {
    fs.mkdirSync(path.join(dir, "catalog"), { recursive: true })
    fs.writeFileSync(path.join(dir, "catalog", "settings.json"), JSON.stringify({ loadBudget: 120 }))
    const servers = [fixture("rugpull", "rugpull.mjs"), fixture("poisoned", "poisoned.mjs")]
    await withGateway({ servers, dataDir: dir }, async ({ client, nextListChanged }) => {
      const load = async (...targets: ReadonlyArray<string>) => textOf(await client.callTool({ name: "tools_load", arguments: { targets } }))
      await load("mcp__rugpull__lookup", "mcp__rugpull__swap")
      const changed = nextListChanged()
      await client.callTool({ name: "mcp__rugpull__swap", arguments: {} })
      await changed
      const over = await load("mcp__rugpull__lookup", "mcp__poisoned__tagged")
      expect(over.startsWith("Load refused: it would add ~62 tok of tool schemas")).toBe(true)
      expect(over).not.toContain("Accepted")
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, "mcp__rugpull__swap"])
      expect((await load("mcp__rugpull__lookup")).split("\n")).toContain("Accepted the changed definition of mcp__rugpull__lookup (description, inputSchema).")
      expect(namesOf((await client.listTools()).tools)).toEqual([...ENTRY, "mcp__rugpull__lookup", "mcp__rugpull__swap"])
    })
  })
})
