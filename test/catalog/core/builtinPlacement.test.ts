import { describe, expect, it } from "@effect/vitest"
import { groupCategory, serverCategory, toolCategory } from "../../../src/catalog/core/builtinPlacement.js"
import { buildCatalog, DEFAULT_CATEGORIES, UNCATEGORIZED } from "../../../src/catalog/core/catalog.js"
import type { ToolSchema } from "../../../src/catalog/core/model.js"

const tool = (name: string, annotations?: ToolSchema["annotations"]): ToolSchema => ({
  name,
  description: `Does ${name}.`,
  inputSchema: { type: "object" },
  ...(annotations === undefined ? {} : { annotations })
})

/** Tools of the common MCP servers, under the names their configs usually give them. */
const COMMON_SERVERS: ReadonlyArray<ToolSchema> = [
  tool("mcp__filesystem__read_file", { readOnlyHint: true }),
  tool("mcp__filesystem__list_directory", { readOnlyHint: true }),
  tool("mcp__github__create_issue"),
  tool("mcp__github__search_repositories"),
  tool("mcp__git__git_status"),
  tool("mcp__slack__slack_post_message"),
  tool("mcp__memory__create_entities"),
  tool("mcp__fetch__fetch", { readOnlyHint: true, openWorldHint: true }),
  tool("mcp__playwright__browser_navigate"),
  tool("mcp__puppeteer__puppeteer_click"),
  tool("mcp__postgres__query", { readOnlyHint: true }),
  tool("mcp__sqlite__read_query"),
  tool("mcp__brave-search__brave_web_search"),
  tool("mcp__sequential-thinking__sequentialthinking"),
  tool("mcp__server-filesystem__write_file", { destructiveHint: true }),
  tool("mcp__linear__create_issue"),
  tool("mcp__notion__notion_create_page"),
  tool("mcp__sentry__get_issue"),
  tool("mcp__desktop-commander__start_process"),
  tool("mcp__google-maps__maps_geocode"),
  tool("mcp__time__get_current_time"),
  tool("mcp__cloudflare__workers_list")
]

describe("the default classifier", () => {
  it("places the common servers' tools in the default categories by server name", () => {
    const catalog = buildCatalog(COMMON_SERVERS)
    expect(catalog.tools.map((entry) => entry.path)).toEqual([
      "/files/filesystem/list_directory",
      "/files/filesystem/read_file",
      "/files/server-filesystem/write_file",
      "/code/git/git_status",
      "/code/github/create_issue",
      "/code/github/search_repositories",
      "/projects/linear/create_issue",
      "/docs/notion/notion_create_page",
      "/web/brave-search/brave_web_search",
      "/web/fetch/fetch",
      "/browser/playwright/browser_navigate",
      "/browser/puppeteer/puppeteer_click",
      "/data/postgres/query",
      "/data/sqlite/read_query",
      "/communication/slack/slack_post_message",
      "/memory/memory/create_entities",
      "/cloud/cloudflare/workers_list",
      "/monitoring/sentry/get_issue",
      "/system/desktop-commander/start_process",
      "/thinking/sequential-thinking/sequentialthinking",
      "/maps/google-maps/maps_geocode",
      "/time/time/get_current_time"
    ])
    expect(catalog.categories.get(UNCATEGORIZED)?.toolCount).toBe(0)
    expect(catalog.categories.get("files")?.description).toBe("Files and folders: read, write, search, move")
  })

  it("places an unknown server by the words of its tools' names and MCP titles, keeping the server's tools together", () => {
    const catalog = buildCatalog([
      tool("mcp__acme__send_message"),
      tool("mcp__acme__list_channels"),
      tool("mcp__acme__get_weather"),
      tool("mcp__corp__t1", { title: "Read File" }),
      tool("mcp__corp__t2", { title: "Write File" }),
      tool("mcp__mystery__do_thing"),
      tool("mcp__mystery__other_thing")
    ])
    expect(catalog.tools.map((entry) => entry.path)).toEqual([
      "/files/corp/t1",
      "/files/corp/t2",
      "/communication/acme/get_weather",
      "/communication/acme/list_channels",
      "/communication/acme/send_message",
      "/uncategorized/mystery/do_thing",
      "/uncategorized/mystery/other_thing"
    ])
  })

  it("places a tool without a server by its own words", () => {
    const catalog = buildCatalog([tool("KillShell"), tool("NotebookEdit"), tool("frobnicate")])
    expect(catalog.tools.map((entry) => entry.path)).toEqual([
      "/docs/misc/NotebookEdit",
      "/system/misc/KillShell",
      "/uncategorized/misc/frobnicate"
    ])
  })

  it("never wins over an annotation, a classifier, a category's claim or the group's vote, and can be turned off", () => {
    const tools = [tool("mcp__github__create_issue"), tool("mcp__github__list_commits"), tool("mcp__slack__post_message")]
    const paths = (catalog: ReturnType<typeof buildCatalog>) => catalog.tools.map((entry) => entry.path)
    expect(paths(buildCatalog(tools, { categories: [{ name: "dev", description: "Ours", groups: ["github"] }] }))).toEqual([
      "/dev/github/create_issue",
      "/dev/github/list_commits",
      "/communication/slack/post_message"
    ])
    expect(paths(buildCatalog(tools, { annotations: { user: { mcp__github__create_issue: { category: "tracker" } } } }))).toEqual([
      "/communication/slack/post_message",
      "/tracker/github/create_issue",
      "/tracker/github/list_commits"
    ])
    expect(paths(buildCatalog(tools, { classifiers: [{ id: "chat", classify: (schema) => (schema.name.includes("slack") ? { category: "chat" } : undefined) }] })))
      .toEqual(["/code/github/create_issue", "/code/github/list_commits", "/chat/slack/post_message"])
    expect(paths(buildCatalog(tools, { builtinPlacement: false }))).toEqual([
      "/uncategorized/github/create_issue",
      "/uncategorized/github/list_commits",
      "/uncategorized/slack/post_message"
    ])
  })

  it("lists its categories before uncategorized in the default definitions, after the host's own", () => {
    expect(DEFAULT_CATEGORIES.map((category) => category.name)).toEqual([
      "files", "code", "projects", "docs", "web", "browser", "data", "communication", "memory", "cloud", "monitoring", "system",
      "thinking", "maps", "time", UNCATEGORIZED
    ])
    const catalog = buildCatalog([tool("mcp__github__a"), tool("mcp__acme__b")], { categories: [{ name: "zz", description: "Mine", groups: ["acme"] }] })
    expect(catalog.root.children.map((category) => category.name)).toEqual(["zz", "code", UNCATEGORIZED])
  })

  it("reads server names word by word, past the words that only say MCP", () => {
    expect(["mcp-server-github", "github_enterprise", "@modelcontextprotocol/server-postgres", "MyTodoistMCP", "k8s", "nothing-known"].map(serverCategory))
      .toEqual(["code", "code", "data", "projects", "cloud", undefined])
    expect(toolCategory({ shortName: "get_pull_request" })).toBe("code")
    expect(toolCategory({ shortName: "get", annotations: { title: "Get Directory Tree" } })).toBe("files")
    expect(toolCategory({ shortName: "delete", annotations: { destructiveHint: true } })).toBe(undefined)
    // Fewer than a third of an unknown server's tools pointing somewhere places nothing.
    expect(groupCategory("acme", [{ shortName: "send_message" }, { shortName: "a" }, { shortName: "b" }, { shortName: "c" }])).toBe(undefined)
    expect(groupCategory("acme", [{ shortName: "send_message" }, { shortName: "a" }, { shortName: "b" }])).toBe("communication")
  })
})
