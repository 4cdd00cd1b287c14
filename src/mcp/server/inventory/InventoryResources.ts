import { FileSystem } from "@effect/platform"
import type { Resource } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Layer, Option, Stream } from "effect"
import { Bundle, BUNDLE_JSON_MAX_BYTES } from "../../../inventory/bundle/Bundle.js"
import type { BundlePaths } from "../../../inventory/bundle/location.js"
import { InventoryReader } from "../../../inventory/query/InventoryReader.js"
import { readRegularFile } from "../../../services/fileRead.js"
import { McpResourceChange, type McpResourceProvider } from "../McpResourceProvider.js"
import { McpProviderError } from "../McpToolProvider.js"
import { untrustedJson } from "../untrusted.js"
import { InventoryChanges } from "./InventoryChanges.js"

const PROVIDER = "inventory"

/** One file of the bundle served as a resource. */
interface BundleResource {
  readonly resource: Resource
  readonly file: (paths: BundlePaths) => string
}

/** The URIs of the bundle's three files. */
export const INVENTORY_RESOURCE_URIS = {
  summary: "tool-map://inventory/summary",
  markdown: "tool-map://inventory/tools.md",
  json: "tool-map://inventory/tools.json"
} as const

const RESOURCES: ReadonlyArray<BundleResource> = [
  {
    resource: {
      uri: INVENTORY_RESOURCE_URIS.summary,
      name: "tools.summary.md",
      title: "Tool inventory summary",
      description: "A short summary of this machine's tools and the agent hosts' items: read it at the start of a session.",
      mimeType: "text/markdown"
    },
    file: (paths) => paths.summary
  },
  {
    resource: {
      uri: INVENTORY_RESOURCE_URIS.markdown,
      name: "tools.md",
      title: "Tool inventory",
      description: "Every tool, version and agent-host item of the last scan, as markdown tables.",
      mimeType: "text/markdown"
    },
    file: (paths) => paths.markdown
  },
  {
    resource: {
      uri: INVENTORY_RESOURCE_URIS.json,
      name: "tools.json",
      title: "Tool inventory (JSON)",
      description: "The whole inventory of the last scan as JSON (the bundle's tools.json, untrusted text neutralized).",
      mimeType: "application/json"
    },
    file: (paths) => paths.json
  }
]

const make = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const bundle = yield* Bundle
  const reader = yield* InventoryReader
  const changes = yield* InventoryChanges

  const failure = (uri: string, reason: string) =>
    new McpProviderError({ provider: PROVIDER, method: "resources/read", target: uri, reason })

  /** The text of one bundle file; when there is no bundle yet, the first scan runs (as a query's would). */
  const readFile = (uri: string, entry: BundleResource) =>
    Effect.gen(function* () {
      const paths = yield* bundle.locate(Option.none()).pipe(Effect.mapError((error) => failure(uri, error.message)))
      const file = entry.file(paths)
      // The bundle's files are read as every data file is: a regular file, within a cap.
      const read = readRegularFile(file, BUNDLE_JSON_MAX_BYTES).pipe(Effect.provideService(FileSystem.FileSystem, fs))
      const bytes = yield* read.pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.zipRight(reader.load(Option.none()), read),
          onSome: (found) => Effect.succeed(Option.some(found))
        })),
        Effect.mapError((error) => failure(uri, error.message))
      )
      if (Option.isNone(bytes)) return yield* failure(uri, `${file} is missing after a scan`)
      return new TextDecoder().decode(bytes.value)
    })

  const readResource = Effect.fn("InventoryResources.read")(function* (uri: string) {
    const entry = RESOURCES.find((candidate) => candidate.resource.uri === uri)
    if (entry === undefined) return Option.none()
    const text = yield* readFile(uri, entry)
    // tools.json keeps the exact strings of the machine (as `--json` does); a client gets them
    // through the one boundary of untrusted text. The markdown files are written neutralized.
    const shown = entry.resource.mimeType === "application/json"
      ? yield* Effect.try({
          try: () => `${JSON.stringify(untrustedJson(JSON.parse(text)), null, 1)}\n`,
          catch: () => failure(uri, "the bundle's tools.json is not valid JSON (run `tool-map scan --force`)")
        })
      : text
    return Option.some({ contents: [{ uri, mimeType: entry.resource.mimeType ?? "text/plain", text: shown }] })
  })

  return InventoryResources.of({
    name: PROVIDER,
    listResources: () => Effect.succeed(RESOURCES.map((entry) => entry.resource)),
    readResource: (uri) => readResource(uri),
    // A new generation rewrote all three files.
    changes: Stream.flatMap(changes.generations, () =>
      Stream.fromIterable(RESOURCES.map((entry) => McpResourceChange.Updated({ uri: entry.resource.uri }))))
  })
})

/** The bundle's summary, `tools.md` and `tools.json` as MCP resources, updated after `inventory_refresh`. */
export class InventoryResources extends Context.Tag("tool-map/mcp/InventoryResources")<InventoryResources, McpResourceProvider>() {
  static readonly layer = Layer.effect(this, make)
}
