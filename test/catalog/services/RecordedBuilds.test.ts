import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as NodeFs from "node:fs"
import { buildCatalog } from "../../../src/catalog/core/catalog.js"
import { definitionHash, partHashes } from "../../../src/catalog/core/definitions.js"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import { type BuildRecordFiles, changedSinceRecorded, RecordedBuilds } from "../../../src/catalog/services/RecordedBuilds.js"

const ISSUE: ToolSchema = {
  name: "mcp__github__create_issue",
  description: "Create an issue.",
  inputSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] }
}
const FORK: ToolSchema = { name: "mcp__github__fork", description: "Fork a repository.", inputSchema: { type: "object" } }
const POST: ToolSchema = { name: "mcp__slack__post_message", description: "Post a message.", inputSchema: { type: "object" } }

const platform = RecordedBuilds.layer.pipe(Layer.provideMerge(NodeContext.layer))

/** A temp dir with the record's files, and `schemas` written as the build's schemas file. */
const filesWith = (schemas: ReadonlyArray<ToolSchema>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped()
    const files: BuildRecordFiles = { record: `${dir}/definitions.json`, schemas: `${dir}/schemas.json`, recordedSchemas: `${dir}/schemas.recorded.json` }
    yield* fs.writeFileString(files.schemas, JSON.stringify(schemas))
    return { dir, files }
  })

describe("RecordedBuilds: a catalog build", () => {
  it.scoped("records the build's hashes and links its schemas; a later build is compared part by part", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const builds = yield* RecordedBuilds
      const { files } = yield* filesWith([ISSUE, POST])
      const first = buildCatalog([ISSUE, POST])
      expect(yield* builds.read(files)).toEqual({ _tag: "Missing" })
      expect(yield* builds.isRecorded(files, first.toolSetKey)).toBe(false)
      yield* builds.record(files, first)
      expect(yield* builds.isRecorded(files, first.toolSetKey)).toBe(true)
      const recorded = yield* builds.read(files)
      expect(recorded).toEqual({
        _tag: "Found",
        value: {
          version: 1,
          toolSetKey: first.toolSetKey,
          recordedAt: "1970-01-01T00:00:00.000Z",
          hashes: { [ISSUE.name]: definitionHash(ISSUE), [POST.name]: definitionHash(POST) }
        }
      })
      expect(NodeFs.statSync(files.recordedSchemas).ino).toBe(NodeFs.statSync(files.schemas).ino)
      const build = recorded._tag === "Found" ? Option.some(recorded.value) : Option.none()

      // The next run's schemas replace the snapshot by a rename; the link keeps the recorded ones.
      const changedIssue: ToolSchema = {
        ...ISSUE,
        inputSchema: { type: "object", properties: { title: { type: "string" }, labels: { type: "array" } }, required: ["title"] },
        annotations: { destructiveHint: true }
      }
      const next = buildCatalog([changedIssue, FORK])
      yield* fs.writeFileString(`${files.schemas}.new`, JSON.stringify([changedIssue, FORK]))
      yield* fs.rename(`${files.schemas}.new`, files.schemas)
      expect(yield* builds.isRecorded(files, next.toolSetKey)).toBe(false)
      const expected = { added: [FORK.name], removed: [POST.name], changed: [ISSUE.name] }
      expect(changedSinceRecorded(build, next)).toEqual(expected)
      const change = {
        name: ISSUE.name,
        known: true,
        title: false,
        description: false,
        outputSchema: false,
        annotations: true,
        schema: false,
        fieldsAdded: ["labels"],
        fieldsRemoved: [],
        fieldsChanged: []
      }
      expect(yield* builds.changes(files, build, next, [changedIssue, FORK])).toEqual({ ...expected, changes: [change] })

      // Without the recorded schemas only that the definition changed is known.
      yield* fs.remove(files.recordedSchemas)
      expect((yield* builds.changes(files, build, next, [changedIssue, FORK])).changes).toEqual([{
        ...change,
        known: false,
        annotations: false,
        fieldsAdded: []
      }])
      // Nothing recorded: every tool is added.
      expect(yield* builds.changes(files, Option.none(), next, [changedIssue, FORK])).toEqual({
        added: [ISSUE.name, FORK.name],
        removed: [],
        changed: [],
        changes: []
      })
    }).pipe(Effect.provide(platform)))

  it.scoped("keeps a record that is not valid aside", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const builds = yield* RecordedBuilds
      const { files } = yield* filesWith([ISSUE])
      yield* fs.writeFileString(files.record, "{\"version\":2}")
      expect(yield* builds.read(files)).toEqual({
        _tag: "Corrupt",
        corrupt: { path: files.record, keptAt: `${files.record}.corrupt-1970-01-01T00-00-00-000Z`, reason: "at .version: Expected 1, actual 2" }
      })
      expect(yield* fs.exists(files.record)).toBe(false)
    }).pipe(Effect.provide(platform)))
})

describe("RecordedBuilds: what an agent loaded", () => {
  it.scoped("records each tool's part fingerprints per agent; a missing, foreign or invalid record is empty", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const builds = yield* RecordedBuilds
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = `${dir}/loaded/agent.json`
      expect(yield* builds.loaded(file, "agent")).toEqual(new Map())
      const tools = new Map([[ISSUE.name, partHashes(ISSUE)], [POST.name, partHashes(POST)]])
      yield* builds.recordLoaded(file, "agent", tools)
      expect(yield* builds.loaded(file, "agent")).toEqual(tools)
      expect(JSON.parse(yield* fs.readFileString(file))).toEqual({
        version: 1,
        agentId: "agent",
        tools: { [ISSUE.name]: partHashes(ISSUE), [POST.name]: partHashes(POST) }
      })
      expect(yield* builds.loaded(file, "someone-else")).toEqual(new Map())
      yield* fs.writeFileString(file, "{\"version\":1,\"agentId\":\"agent\",\"tools\":{\"x\":{}}}")
      expect(yield* builds.loaded(file, "agent")).toEqual(new Map())
    }).pipe(Effect.provide(platform)))
})
