/**
 * The default classifier: where a tool goes when no annotation, registered classifier or
 * category claim places it. It knows the common MCP servers by name (filesystem, github,
 * slack, playwright, postgres, …), and for a server it does not know it reads the words of
 * the tools' names and MCP titles (`read_file`, `navigate`, `send_message`, `execute_sql`).
 * A server's tools stay together: the server's name decides, else the category most of its
 * tools' words point to. A tool without a server (a host's own) is placed by its own words.
 *
 * This file holds every rule of it: the default categories and the words that lead to each.
 * Words are compared lowercase, a plural as its singular (`files`, `entities`, `branches`), without
 * a stemmer: a listing in a fresh process must not pay for stemming every name.
 * `readOnlyHint` and `destructiveHint` say how risky a tool is (`risk.ts`), not what it is
 * about, so they place nothing here.
 */
import type { CategoryDefinition, ToolAnnotations } from "./model.js"
import { words } from "./router/analyze.js"

/** The default categories, in listing order (a definition of the same name replaces one). */
export const BUILTIN_CATEGORIES: ReadonlyArray<CategoryDefinition> = [
  { name: "files", description: "Files and folders: read, write, search, move" },
  { name: "code", description: "Repositories, version control, pull requests and reviews" },
  { name: "projects", description: "Issues, tickets, tasks and project boards" },
  { name: "docs", description: "Documents, notes, wikis and knowledge bases" },
  { name: "web", description: "Fetch pages, crawl sites and search the web" },
  { name: "browser", description: "Drive a web browser: navigate, click, type, screenshot" },
  { name: "data", description: "Databases and data stores: queries, tables, schemas" },
  { name: "communication", description: "Messages, channels and mail" },
  { name: "memory", description: "What the agent keeps between sessions: knowledge graphs, memories" },
  { name: "cloud", description: "Cloud, containers, deployment and infrastructure" },
  { name: "monitoring", description: "Errors, logs, metrics and incidents" },
  { name: "system", description: "Shell commands, processes and the local machine" },
  { name: "thinking", description: "Step-by-step reasoning and planning aids" },
  { name: "maps", description: "Places, directions and geocoding" },
  { name: "time", description: "Current time, dates and time zones" }
]

type BuiltinCategory =
  | "files" | "code" | "projects" | "docs" | "web" | "browser" | "data" | "communication" | "memory" | "cloud"
  | "monitoring" | "system" | "thinking" | "maps" | "time"

/** Words of a server's name (its key in the host's config) and the category they mean. */
const SERVER_WORDS: Readonly<Record<BuiltinCategory, ReadonlyArray<string>>> = {
  files: ["filesystem", "fs", "files", "file", "drive", "gdrive", "dropbox", "onedrive", "sharepoint"],
  code: ["github", "gitlab", "git", "bitbucket", "gitea", "sourcegraph", "codeberg"],
  projects: ["linear", "jira", "asana", "trello", "clickup", "todoist", "monday", "shortcut", "youtrack"],
  docs: ["notion", "confluence", "obsidian", "docs", "gdocs", "wiki", "coda", "context7"],
  web: [
    "fetch", "brave", "tavily", "exa", "perplexity", "serper", "serpapi", "duckduckgo", "kagi", "firecrawl", "jina",
    "search", "websearch", "web", "crawl", "crawler", "scraper", "apify"
  ],
  browser: ["playwright", "puppeteer", "browser", "browserbase", "chrome", "chromium", "selenium", "stagehand", "devtools"],
  data: [
    "postgres", "postgresql", "pg", "sqlite", "mysql", "mariadb", "mongodb", "mongo", "redis", "supabase", "bigquery",
    "snowflake", "duckdb", "clickhouse", "neon", "prisma", "database", "db", "sql", "elasticsearch", "pinecone", "qdrant",
    "airtable", "dynamodb"
  ],
  communication: ["slack", "discord", "teams", "gmail", "email", "mail", "telegram", "whatsapp", "twilio", "intercom", "outlook"],
  memory: ["memory", "memories", "knowledge", "mem0", "graphiti"],
  cloud: [
    "aws", "gcp", "gcloud", "azure", "kubernetes", "k8s", "docker", "vercel", "cloudflare", "terraform", "netlify",
    "heroku", "fly", "pulumi", "helm"
  ],
  monitoring: ["sentry", "datadog", "grafana", "prometheus", "pagerduty", "newrelic", "honeycomb", "logs"],
  system: ["shell", "terminal", "commander", "desktop", "ssh", "process", "exec", "bash"],
  thinking: ["thinking", "sequentialthinking", "reasoning", "think"],
  maps: ["maps", "googlemaps", "mapbox", "osm", "openstreetmap"],
  time: ["time", "timezone", "clock"]
}

/**
 * Words of a tool's name or MCP title and the category they mean, for servers whose name says
 * nothing known. Only words that name a kind of thing or an action of one kind: `get`, `list`
 * or `delete` say nothing about what a tool is about.
 */
const TOOL_WORDS: Readonly<Record<BuiltinCategory, ReadonlyArray<string>>> = {
  files: ["file", "files", "directory", "directories", "dir", "folder", "path", "filesystem"],
  code: ["repository", "repo", "pull", "commit", "branch", "fork", "diff", "blame", "gist"],
  projects: ["issue", "ticket", "sprint", "epic", "task", "board", "milestone", "backlog"],
  docs: ["document", "doc", "note", "notes", "wiki", "notebook"],
  web: ["fetch", "url", "web", "crawl", "scrape", "website", "http"],
  browser: ["navigate", "click", "hover", "screenshot", "scroll", "browser", "tab", "dom", "selector"],
  data: ["sql", "table", "tables", "database", "row", "rows", "column", "collection"],
  communication: ["message", "messages", "channel", "email", "mail", "dm", "reply", "thread", "inbox", "chat"],
  memory: ["entity", "entities", "relation", "relations", "observation", "observations", "memory", "remember", "recall"],
  cloud: ["deploy", "deployment", "container", "cluster", "bucket", "instance", "pod", "lambda"],
  monitoring: ["error", "errors", "log", "logs", "metric", "metrics", "incident", "alert", "trace"],
  system: ["command", "shell", "terminal", "process", "bash", "exec", "pid"],
  thinking: ["thought", "think", "thinking", "reason", "reasoning"],
  maps: ["geocode", "directions", "distance", "elevation"],
  time: ["time", "timezone", "date"]
}

/** Word → category, the first category listing a word wins. */
const wordTable = (table: Readonly<Record<BuiltinCategory, ReadonlyArray<string>>>): ReadonlyMap<string, BuiltinCategory> => {
  const out = new Map<string, BuiltinCategory>()
  for (const [category, list] of Object.entries(table) as ReadonlyArray<[BuiltinCategory, ReadonlyArray<string>]>) {
    for (const word of list) if (!out.has(word)) out.set(word, category)
  }
  return out
}

const SERVER_TABLE = wordTable(SERVER_WORDS)
const TOOL_TABLE = wordTable(TOOL_WORDS)

/** The category of a lowercase word in a table, or of its singular (`-ies` → `-y`, `-es`, `-s`). */
const lookup = (table: ReadonlyMap<string, BuiltinCategory>, word: string): BuiltinCategory | undefined => {
  const found = table.get(word)
  if (found !== undefined || word.length < 4 || !word.endsWith("s")) return found
  if (word.endsWith("ies")) return table.get(`${word.slice(0, -3)}y`)
  return (word.endsWith("es") ? table.get(word.slice(0, -2)) : undefined) ?? table.get(word.slice(0, -1))
}

/** Words of a server name that only say it is an MCP server. */
const SERVER_NOISE: ReadonlySet<string> = new Set(["mcp", "server", "servers", "modelcontextprotocol", "official", "local"])

/** The category a server's name means: its first word the table knows (`brave-search` → web). */
export const serverCategory = (server: string): string | undefined => {
  const known = serverCategories.get(server)
  if (known !== undefined || serverCategories.has(server)) return known
  let found: string | undefined
  const parts = words(server).filter((word) => !SERVER_NOISE.has(word))
  // The whole name first, so `sequentialthinking` or `googlemaps` match as written.
  for (const word of [parts.join(""), ...parts]) {
    found = lookup(SERVER_TABLE, word)
    if (found !== undefined) break
  }
  if (serverCategories.size >= SERVER_CACHE_SIZE) serverCategories.clear()
  serverCategories.set(server, found)
  return found
}

const SERVER_CACHE_SIZE = 10_000
const serverCategories = new Map<string, string | undefined>()

/** What the default classifier reads of a tool. */
export interface PlacedTool {
  /** The name without its `mcp__server__` prefix. */
  readonly shortName: string
  readonly annotations?: ToolAnnotations | undefined
}

/** The category the first word of a text the table knows points to. */
const wordsCategory = (text: string): string | undefined => {
  for (const word of words(text)) {
    const found = lookup(TOOL_TABLE, word)
    if (found !== undefined) return found
  }
  return undefined
}

/** The category the words of a tool's name (then of its MCP title) point to. */
export const toolCategory = (tool: PlacedTool): string | undefined => {
  const byName = wordsCategory(tool.shortName)
  if (byName !== undefined) return byName
  const title = tool.annotations?.title
  return typeof title === "string" ? wordsCategory(title) : undefined
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The category of a group of one server's tools: the server's name, else the category most of
 * its tools' words point to (ties: the smaller name), provided that at least a third of the
 * tools point to it; else none.
 */
export const groupCategory = (group: string, tools: ReadonlyArray<PlacedTool>): string | undefined => {
  const byName = serverCategory(group)
  if (byName !== undefined) return byName
  const tally = new Map<string, number>()
  for (const tool of tools) {
    const category = toolCategory(tool)
    if (category !== undefined) tally.set(category, (tally.get(category) ?? 0) + 1)
  }
  let best: string | undefined
  let bestCount = 0
  for (const [category, count] of tally) {
    if (count > bestCount || (count === bestCount && best !== undefined && compare(category, best) < 0)) {
      best = category
      bestCount = count
    }
  }
  return best !== undefined && bestCount * 3 >= tools.length ? best : undefined
}
