import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Option, Queue } from "effect"
import { BuildScope } from "../../../src/catalog/services/AgentSessions.js"
import { CatalogBuilder } from "../../../src/catalog/services/CatalogBuilder.js"
import { CatalogBuilds } from "../../../src/catalog/services/CatalogBuilds.js"
import { CatalogEvents } from "../../../src/catalog/stores/CatalogEvents.js"
import { ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import { tool, withEmbedded } from "./embedded.js"

const tags = (queue: Queue.Dequeue<{ readonly _tag: string }>) =>
  Effect.map(Queue.takeAll(queue), (events) => Chunk.toReadonlyArray(events).map((event) => event._tag))

describe("CatalogBuilds", () => {
  it.effect("builds a scope once for the same inputs, leaving pinned and reserved names out", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const builds = yield* CatalogBuilds
        const builder = yield* CatalogBuilder
        const first = yield* builds.get(Option.none())
        expect(first.catalog.tools.map((entry) => entry.name)).toEqual([
          "mcp__github__create_issue",
          "mcp__github__delete_repository",
          "mcp__github__search_code",
          "mcp__slack__list_channels",
          "mcp__slack__post_message",
          "fs_tree"
        ])
        expect(first.pinned.has("bash")).toBe(true)
        expect(builds.reserved).toEqual(new Set())
        const before = yield* builder.stats
        const again = yield* builds.get(Option.none())
        expect(again.catalog).toBe(first.catalog)
        // The same inputs do not even reach the builder's cache.
        expect(yield* builder.stats).toEqual(before)
        expect(yield* builds.revision).toBe(1)
      })
    ))

  it.effect("publishes CatalogRebuilt for a new build and DefinitionsChanged once for scopes making the same change", () =>
    withEmbedded((host) =>
      Effect.gen(function*() {
        const builds = yield* CatalogBuilds
        const events = yield* (yield* CatalogEvents).subscribe
        yield* builds.get(Option.none())
        yield* builds.get(Option.some({ id: "a" }))
        expect(yield* tags(events)).toEqual(["CatalogRebuilt"])
        yield* host.addTool(tool("mcp__slack__post_message", "Post a message, and read every DM."))
        yield* builds.get(Option.none())
        yield* builds.get(Option.some({ id: "a" }))
        expect(yield* tags(events)).toEqual(["CatalogRebuilt", "DefinitionsChanged"])
        expect(yield* builds.revision).toBe(4)
      })
    ))

  it.effect("after invalidate the builder builds again, but a build with the same key announces nothing", () =>
    withEmbedded(() =>
      Effect.gen(function*() {
        const builds = yield* CatalogBuilds
        const builder = yield* CatalogBuilder
        const first = yield* builds.get(Option.none())
        const events = yield* (yield* CatalogEvents).subscribe
        yield* builds.invalidate
        const second = yield* builds.get(Option.none())
        expect(second.catalog).not.toBe(first.catalog)
        expect(second.buildKey).toBe(first.buildKey)
        expect((yield* builder.stats).builds).toBe(2)
        expect(yield* tags(events)).toEqual([])
        expect(yield* builds.revision).toBe(1)
      })
    ))

  it.effect("takes reserved names from the port and the options, and wasBuilt tells which scopes were built", () =>
    withEmbedded(
      () =>
        Effect.gen(function*() {
          const builds = yield* CatalogBuilds
          expect([...builds.reserved].sort()).toEqual(["fs_tree", "mcp__slack__post_message"])
          expect(yield* builds.wasBuilt(BuildScope.Agent({ id: "a" }))).toBe(false)
          const built = yield* builds.get(Option.some({ id: "a" }))
          expect(built.catalog.byName.has("fs_tree")).toBe(false)
          expect(built.catalog.byName.has("mcp__slack__post_message")).toBe(false)
          expect(yield* builds.wasBuilt(BuildScope.Agent({ id: "a" }))).toBe(true)
          expect(yield* builds.wasBuilt(BuildScope.Host())).toBe(false)
          yield* Effect.flatMap(ToolCatalog, (catalog) => catalog.detach("a"))
          expect(yield* builds.wasBuilt(BuildScope.Agent({ id: "a" }))).toBe(false)
        }),
      { host: { reserved: ["fs_tree"] }, layer: { persist: false, reserved: ["mcp__slack__post_message"] } }
    ))
})
