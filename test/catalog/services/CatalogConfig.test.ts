import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Option, Queue } from "effect"
import { DEFAULT_PINNED, ENTRY_TOOLS } from "../../../src/catalog/core/visibility.js"
import { CatalogConfig } from "../../../src/catalog/services/CatalogConfig.js"
import { CatalogEvents } from "../../../src/catalog/stores/CatalogEvents.js"
import { ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import { withEmbedded } from "./embedded.js"

describe("CatalogConfig", () => {
  it.effect("snapshots the configuration in force, with no files when nothing is persisted", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const config = yield* (yield* CatalogConfig).config
        expect(config).toEqual({
          pinned: [...DEFAULT_PINNED, ...ENTRY_TOOLS],
          entryTools: ["tools_ls", "tools_load", "tools_unload", "tools_find", "tools_route", "skills_find", "skills_route"],
          defaults: [...DEFAULT_PINNED],
          extraPinned: [],
          unpinned: [],
          highRisk: [],
          reserved: ["fs_tree"],
          exemptProviders: ["claude-code"],
          exemptSessions: [],
          exemptFromFile: false,
          hasSettings: false,
          files: { settings: null, metadata: null, exemptions: null, manifest: null }
        })
      }), { host: { reserved: ["fs_tree"] } }))

  it.effect("an edit is applied to every known agent, then announced, before it returns", () =>
    withEmbedded((host) =>
      Effect.gen(function*() {
        const config = yield* CatalogConfig
        const events = yield* (yield* CatalogEvents).subscribe
        yield* (yield* ToolCatalog).attach({ id: "a" })
        yield* Queue.takeAll(events)
        const snapshot = yield* config.updateConfig({ pinned: ["fs_tree"] })
        expect(snapshot.extraPinned).toEqual(["fs_tree"])
        expect(Option.map(Option.flatten(yield* host.restrictionOf("a")), (names) => names.includes("fs_tree"))).toEqual(Option.some(true))
        const seen = Chunk.toReadonlyArray(yield* Queue.takeAll(events)).map((event) => event._tag)
        expect(seen.slice(-1)).toEqual(["SettingsChanged"])
      })
    ))

  it.effect("tells a tool's declared, edited and effective metadata apart", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const config = yield* CatalogConfig
        yield* (yield* ToolCatalog).annotate({ match: "fs_tree", meta: { category: "files" } }, "package")
        const edited = yield* config.updateToolMeta("fs_tree", { group: "tree" })
        expect([edited.declared, edited.edited, edited.effective, edited.path]).toEqual([
          { category: "files" },
          { group: "tree" },
          { category: "files", group: "tree" },
          "/files/tree/fs_tree"
        ])
        const missing = yield* config.toolMeta("no_such_tool")
        expect([missing.found, missing.path]).toEqual([false, ""])
        expect((yield* config.clearToolMeta("fs_tree")).edited).toEqual({})
      })
    ))
})
