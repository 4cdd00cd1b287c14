import { NodeContext } from "@effect/platform-node"
import { Effect, Exit, FastCheck as fc, Layer, Option, Scope } from "effect"
import { describe, expect, it } from "vitest"
import type { ToolSchema } from "../../src/catalog/core/model.js"
import { DEFAULT_PINNED, ENTRY_TOOLS } from "../../src/catalog/core/visibility.js"
import { HostLayer } from "../../src/layers/HostLayer.js"
import { MachineEnvironment } from "../../src/services/MachineEnvironment.js"
import { type Agent, ToolCatalog } from "../../src/catalog/services/ToolCatalog.js"
import { makeMemoryHost } from "../../examples/minimal-host/host.js"

const SERVERS = ["github", "slack", "db", "files", "mail"]
const VERBS = ["get", "list", "create", "search", "update", "delete", "drop"]
const NOUNS = ["issue", "file", "row", "message", "label"]
const PLAIN = ["bash", "read", "grep", "fmt", "lint", "deploy_app", "remove_cache", "Task"]

const nameArb = fc.oneof(
  fc.tuple(fc.constantFrom(...SERVERS), fc.constantFrom(...VERBS), fc.constantFrom(...NOUNS)).map(
    ([server, verb, noun]) => `mcp__${server}__${verb}_${noun}`
  ),
  fc.constantFrom(...PLAIN)
)

const toolsArb = fc.uniqueArray(nameArb, { minLength: 1, maxLength: 40 }).map((names) =>
  names.map((name): ToolSchema => ({ name, description: `Tool ${name.replace(/_/g, " ")}.`, inputSchema: { type: "object" } }))
)

/** Targets as an agent would write them, including ones that name nothing or a pinned tool. */
const targetsFor = (tools: ReadonlyArray<ToolSchema>) => {
  const names = tools.map((tool) => tool.name)
  const servers = SERVERS.filter((server) => names.some((name) => name.startsWith(`mcp__${server}__`)))
  const pool = [
    ...names,
    ...servers,
    ...servers.map((server) => `/uncategorized/${server}`),
    "/uncategorized",
    "misc",
    "/uncategorized/misc",
    "nope",
    "/",
    "bash"
  ]
  return fc.uniqueArray(fc.constantFrom(...pool), { minLength: 1, maxLength: 4 })
}

type Op =
  | { readonly _tag: "load"; readonly targets: ReadonlyArray<string> }
  | { readonly _tag: "unload"; readonly targets: ReadonlyArray<string> }
  | { readonly _tag: "gate"; readonly on: boolean }

const opsFor = (tools: ReadonlyArray<ToolSchema>) =>
  fc.array(
    fc.oneof(
      { weight: 4, arbitrary: targetsFor(tools).map((targets): Op => ({ _tag: "load", targets })) },
      { weight: 2, arbitrary: targetsFor(tools).map((targets): Op => ({ _tag: "unload", targets })) },
      { weight: 1, arbitrary: fc.boolean().map((on): Op => ({ _tag: "gate", on })) }
    ),
    { maxLength: 12 }
  )

const agent: Agent = { id: "prop" }

/** Runs `body` against a catalog embedded over a memory host with these tools (nothing persisted). */
const run = <A>(tools: ReadonlyArray<ToolSchema>, body: Effect.Effect<A, never, ToolCatalog | Scope.Scope>): Promise<A> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const host = yield* makeMemoryHost({ tools })
      return yield* body.pipe(Effect.scoped, Effect.provide(HostLayer({ persist: false }).pipe(Layer.provide(host.port))))
    }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({}))))
  )

/** A risk gate switched on and off: registered in a scope of its own, closed to switch it off. */
const switchableGate = Effect.gen(function*() {
  const catalog = yield* ToolCatalog
  let open: Scope.CloseableScope | undefined
  return {
    isOn: () => open !== undefined,
    set: (on: boolean) =>
      Effect.gen(function*() {
        if (on && open === undefined) {
          const scope = yield* Scope.make()
          yield* Scope.extend(catalog.registerRiskGate({ name: "gate" }), scope)
          open = scope
        }
        if (!on && open !== undefined) {
          yield* Scope.close(open, Exit.void)
          open = undefined
        }
      })
  }
})

const allowOf = Effect.flatMap(ToolCatalog, (catalog) => Effect.map(catalog.allowFor(agent), Option.getOrThrow))

const PINNED = new Set([...DEFAULT_PINNED, ...ENTRY_TOOLS])

describe("visibility properties over generated catalogs", () => {
  it("load then unload of the same targets restores the allow-list", async () => {
    await fc.assert(
      fc.asyncProperty(
        toolsArb.chain((tools) => fc.tuple(fc.constant(tools), targetsFor(tools))),
        ([tools, targets]) =>
          run(tools, Effect.gen(function*() {
            const catalog = yield* ToolCatalog
            yield* catalog.registerRiskGate({ name: "gate" })
            const before = yield* allowOf
            yield* catalog.load(agent, targets)
            yield* catalog.unload(agent, targets)
            expect(yield* allowOf).toEqual(before)
            expect(yield* catalog.stateOf(agent)).toEqual({ loaded: [], groups: [], excluded: [], handoffGroups: [], handoffTools: [] })
          }))
      ),
      { numRuns: 60 }
    )
  })

  it("a load never moves existing allow-list entries: it only appends", async () => {
    await fc.assert(
      fc.asyncProperty(
        toolsArb.chain((tools) => fc.tuple(fc.constant(tools), opsFor(tools))),
        ([tools, ops]) =>
          run(tools, Effect.gen(function*() {
            const catalog = yield* ToolCatalog
            const gate = yield* switchableGate
            for (const op of ops) {
              const before = yield* allowOf
              if (op._tag === "gate") {
                yield* gate.set(op.on)
                continue
              }
              if (op._tag === "load") {
                yield* catalog.load(agent, op.targets)
                const after = yield* allowOf
                expect(after.slice(0, before.length)).toEqual(before)
              } else {
                yield* catalog.unload(agent, op.targets)
                const after = yield* allowOf
                // An unload only removes: what stays keeps its relative order.
                expect(after).toEqual(before.filter((name) => after.includes(name)))
              }
            }
          }))
      ),
      { numRuns: 60 }
    )
  })

  it("a high-risk tool is never visible unless it was loaded on its own while a risk gate was registered", async () => {
    await fc.assert(
      fc.asyncProperty(
        toolsArb.chain((tools) => fc.tuple(fc.constant(tools), opsFor(tools))),
        ([tools, ops]) =>
          run(tools, Effect.gen(function*() {
            const catalog = yield* ToolCatalog
            const built = yield* catalog.get()
            const risky = new Set(built.tools.filter((tool) => tool.highRisk).map((tool) => tool.name))
            // High-risk names loaded singly through a gate and not unloaded since.
            const granted = new Set<string>()
            const gate = yield* switchableGate
            for (const op of ops) {
              if (op._tag === "gate") {
                yield* gate.set(op.on)
              } else if (op._tag === "load") {
                const result = yield* catalog.load(agent, op.targets)
                for (const name of result.added) {
                  if (risky.has(name)) {
                    expect(gate.isOn()).toBe(true)
                    granted.add(name)
                  }
                }
              } else {
                const result = yield* catalog.unload(agent, op.targets)
                for (const name of result.removed) granted.delete(name)
              }
              for (const name of yield* allowOf) if (risky.has(name)) expect(granted.has(name)).toBe(true)
            }
          }))
      ),
      { numRuns: 60 }
    )
  })

  it("pinned tools are never listed and never unloadable", async () => {
    await fc.assert(
      fc.asyncProperty(
        toolsArb.chain((tools) => fc.tuple(fc.constant(tools), targetsFor(tools))),
        ([tools, targets]) =>
          run(tools, Effect.gen(function*() {
            const catalog = yield* ToolCatalog
            const pinnedHere = tools.map((tool) => tool.name).filter((name) => PINNED.has(name))
            const built = yield* catalog.get()
            for (const name of pinnedHere) expect(built.byName.has(name)).toBe(false)
            const root = yield* catalog.list(agent, { path: "/", query: pinnedHere.join(" ") })
            for (const name of pinnedHere) expect(root.includes(`/${name}`)).toBe(false)
            yield* catalog.load(agent, targets)
            yield* catalog.unload(agent, [...pinnedHere, ...targets, "all"])
            const allow = yield* allowOf
            for (const name of [...ENTRY_TOOLS, ...pinnedHere]) expect(allow.includes(name)).toBe(true)
          }))
      ),
      { numRuns: 60 }
    )
  })
})
