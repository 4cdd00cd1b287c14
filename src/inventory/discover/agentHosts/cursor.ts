import { Effect, Option } from "effect"
import { estimateTextTokens } from "../../domain/tokens.js"
import { instructionsCost } from "../../domain/ledger.js"
import { instructionsFile, standalone } from "./markdownItems.js"
import { mcpDrafts } from "./mcp.js"
import type { ItemDraft } from "./precedence.js"
import { decodedOrNull } from "./config/decode.js"
import { McpServersFile } from "./config/mcpServersFile.js"
import { describe } from "./frontmatterFields.js"
import { dirsToGitRoot } from "./hostPaths.js"
import { type HostReadContext, hostReading, type HostReading, type HostReadResult } from "./hostReading.js"

/**
 * Cursor (cursor.com/docs): MCP servers in `~/.cursor/mcp.json` and the project's
 * `.cursor/mcp.json` (the project's wins on a name); rules in `.cursor/rules/**.mdc` and the
 * legacy `.cursorrules`. Cursor keeps its per-server on/off switch in its own database, which
 * is not read: servers count as enabled.
 */
export const readCursor = (ctx: HostReadContext): Effect.Effect<HostReadResult> =>
  Effect.gen(function* () {
    const c = hostReading("cursor", ctx)
    const path = ctx.path
    const projects = yield* dirsToGitRoot(c)
    for (const [index, dir] of projects.entries()) {
      const file = path.join(dir, ".cursor", "mcp.json")
      if (!(yield* c.exists(file))) continue
      for (const draft of yield* serversOf(c, file, "project MCP servers", "project", index)) c.add(draft)
    }
    for (const draft of yield* serversOf(c, path.join(ctx.env.homedir, ".cursor", "mcp.json"), "user MCP servers", "user", 100)) c.add(draft)

    for (const dir of projects) {
      const rulesDir = path.join(dir, ".cursor", "rules")
      if ((yield* c.probe(rulesDir))._tag === "directory") {
        const files = yield* c.filesWithExtension(rulesDir, "project rules", true, ".mdc")
        for (const file of files) {
          const read = yield* c.readMarkdown(file)
          if (Option.isNone(read)) continue
          const { doc, file: bytes } = read.value
          c.add({
            fields: {
              kind: "instructions",
              host: "cursor",
              scope: "project",
              name: c.path.basename(file),
              path: file,
              enabled: true,
              disabledReason: null,
              sha256: bytes.sha256,
              mtime: bytes.mtime,
              plugin: null,
              description: describe(c.stringField(doc.fields, "description", file), null),
              size: bytes.bytes.length
            },
            entry: null,
            namespace: null,
            rank: 0,
            // A rule with alwaysApply is in every request; the others are offered by their description.
            cost: doc.fields["alwaysApply"] === true
              ? instructionsCost(doc.body)
              : { alwaysOn: describe(c.stringField(doc.fields, "description", file), null) ?? "", onInvokeTokens: estimateTextTokens(doc.body.trim()) }
          })
        }
      }
      const legacy = yield* instructionsFile(c, path.join(dir, ".cursorrules"), "legacy project rules", standalone("project"))
      if (Option.isSome(legacy)) c.add(legacy.value)
    }
    return c.result()
  })

const serversOf = (c: HostReading, file: string, role: string, scope: "user" | "project", rank: number): Effect.Effect<ReadonlyArray<ItemDraft>> =>
  Effect.map(c.readJson(file, role, { jsonc: false }), (json) =>
    Option.match(json, {
      onNone: () => [],
      onSome: ({ file: read, value }) =>
        mcpDrafts(c, decodedOrNull(McpServersFile, file, value)?.mcpServers ?? null, file, read.mtime, scope, { plugin: null, enabled: true, disabledReason: null, rank }, "mcp", "cursor")
    })
  )
