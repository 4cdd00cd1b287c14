import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { EntryTools, UnknownEntryTool } from "../../../src/catalog/services/EntryTools.js"
import { ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import { withEmbedded } from "./embedded.js"

const agent = { id: "a" }

describe("EntryTools", () => {
  it.effect("dispatches each entry tool with decoded arguments to the loads and views", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const entry = yield* EntryTools
        expect(entry.definitions.map((definition) => definition.name)).toEqual(["tools_ls", "tools_load", "tools_unload", "tools_find", "tools_route", "skills_find", "skills_route"])
        expect(yield* entry.call(agent, "tools_load", { targets: ["fs_tree"], forSubagents: true })).toBe(
          "Loaded 1 tool(s), ~18 tok; callable from your next step:\n  fs_tree"
        )
        expect((yield* (yield* ToolCatalog).stateOf(agent)).handoffTools).toEqual(["fs_tree"])
        expect(yield* entry.call(agent, "tools_ls", undefined)).toContain("uncategorized/")
        expect(yield* entry.call(agent, "tools_unload", { targets: ["fs_tree"] })).toBe("Unloaded 1 tool(s):\n  fs_tree")
      })
    ))

  it.effect("fails with the tool's name for a name that is not an entry tool, and on arguments off the schema", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const entry = yield* EntryTools
        const unknown = yield* Effect.flip(entry.call(agent, "tools_rm", {}))
        expect(unknown).toEqual(new UnknownEntryTool({ name: "tools_rm" }))
        expect(unknown.message).toBe("tools_rm is not an entry tool of the catalog (tools_ls, tools_load, tools_unload, tools_find, tools_route, skills_find, skills_route)")
        const invalid = yield* Effect.flip(entry.call(agent, "tools_unload", { targets: [1] }))
        expect(invalid._tag).toBe("EntryToolArgumentsError")
        expect(invalid.message.startsWith("Invalid arguments for tools_unload: ")).toBe(true)
      })
    ))
})
