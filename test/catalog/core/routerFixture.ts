import type { ToolSchema } from "../../../src/catalog/core/model.js"

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

