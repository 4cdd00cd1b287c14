import { Option } from "effect"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import { type IndexedCatalog, indexHeadBytes, openIndex } from "../../../src/catalog/core/router/indexFile.js"
import type { RouterIndex } from "../../../src/catalog/core/router/invertedIndex.js"

/** An object JSON Schema with these properties. */
export const object = (properties: Record<string, unknown>) => ({ type: "object", properties })

/** A small catalog of two MCP servers and a plain tool. */
export const ROUTER_FIXTURE: ReadonlyArray<ToolSchema> = [
  {
    name: "mcp__github__create_issue",
    description: "Create a new issue in a GitHub repository.",
    inputSchema: object({ title: { type: "string", description: "Issue title" }, body: { type: "string" } })
  },
  { name: "mcp__github__search_code", description: "Search for code across GitHub repositories.", inputSchema: object({ q: { type: "string" } }) },
  {
    name: "mcp__github__delete_repository",
    description: "Delete a repository for good.",
    inputSchema: object({ repo: { type: "string" } }),
    annotations: { destructiveHint: true }
  },
  {
    name: "mcp__slack__post_message",
    description: "Post a message to a Slack channel.",
    inputSchema: object({ channel_id: { type: "string", description: "The channel to post in" }, text: { type: "string" } })
  },
  { name: "mcp__slack__list_channels", description: "List the public channels of the workspace.", inputSchema: object({}) },
  {
    name: "read_text_file",
    description: "Read the complete contents of a file as text.",
    inputSchema: object({ path: { type: "string" }, encoding: { type: "string", enum: ["utf8", "latin1"] } }),
    annotations: { readOnlyHint: true }
  }
]


/**
 * The index in the bytes of a whole file, in memory, when they are a whole, well-formed index
 * of this format for `catalog`; `None` otherwise. Its documents are the catalog's tools, in order.
 * (The router reads a file piece by piece; tests read one whole.)
 */
export const decodeIndex = (bytes: Uint8Array, catalog: IndexedCatalog): Option.Option<RouterIndex> => {
  const headBytes = indexHeadBytes(bytes, bytes.length)
  if (Option.isNone(headBytes)) return Option.none()
  const opened = openIndex(bytes.subarray(0, headBytes.value), bytes.length, catalog)
  if (Option.isNone(opened)) return Option.none()
  const index = opened.value
  for (const range of index.rangesOf(index.missing())) {
    if (!index.accept(range, bytes.subarray(range.offset, range.offset + range.length))) return Option.none()
  }
  return Option.some(index.toRouterIndex())
}
