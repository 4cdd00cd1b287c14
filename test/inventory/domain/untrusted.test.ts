import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc, Schema } from "effect"
import { AgentHostsInventory, AgentItem, McpServerItem } from "../../../src/inventory/domain/agentHosts.js"
import { cleanInventory } from "../../../src/inventory/domain/cleanInventory.js"
import { Inventory, WatchedInput, WatchSet } from "../../../src/inventory/domain/inventory.js"
import { redactArgv, redactSecrets } from "../../../src/inventory/domain/secrets.js"
import { cleanerFor, cleanText, isCleaned, neutralize, wellFormed } from "../../../src/inventory/domain/untrusted.js"
import { renderInventoryJson } from "../../../src/inventory/render/inventoryJson.js"
import { inventoryOf, toolNamed } from "../../support/inventory.js"

// Built by concatenation so no scanner mistakes this file for a leak.
const ghpA = "ghp_" + "AAAAAAAAAAAAAAAAAAAA"
const ghpB = "ghp_" + "BBBBBBBBBBBBBBBBBBBB"

describe("the one text rule: the shapes of issue 11", () => {
  it.each([
    // 1. agent tools, disallowedTools and mcpServers entries
    ["Bash(export API_TOKEN=X1)", "Bash(export API_TOKEN=[redacted])"],
    ["Bash(mysql --password=X1)", "Bash(mysql --password=[redacted])"],
    ["Bash(mysql -u root --password X1 db)", "Bash(mysql -u root --password [redacted] db)"],
    ["srv --api-key=X1", "srv --api-key=[redacted]"],
    // 2. command argument-hint and allowed-tools
    ["--token X1", "--token [redacted]"],
    ["Bash(export TOKEN=X1), Read", "Bash(export TOKEN=[redacted]), Read"],
    // 3. the default of a secret-named variable
    ["--db ${DB_PASSWORD:-X1}", "--db ${DB_PASSWORD:-[redacted]}"],
    ["${API_KEY:=X1}", "${API_KEY:=[redacted]}"],
    // 4. URL userinfo without a colon
    ["https://X1@github.com/o/r.git", "https://[redacted]@github.com/o/r.git"],
    ["clone git+https://X1@host/r then", "clone git+https://[redacted]@host/r then"],
    // 5. Authorization in a command string and in descriptions
    ["curl -H 'Authorization: Bearer X1' https://h", "curl -H 'Authorization: Bearer [redacted]' https://h"],
    ["Call it with Authorization: Basic X1 set", "Call it with Authorization: Basic [redacted] set"],
    ["send Bearer X1abcdefgh to it", "send Bearer [redacted] to it"],
    // 6. header-shaped values the old header rule missed
    ['-H "X-Auth-Key: X1"', '-H "X-Auth-Key: [redacted]"'],
    ["--header=X-Auth: X1", "--header=X-Auth: [redacted]"],
    ["Cookie: sid=X1", "Cookie: [redacted]"],
    ["password:X1", "password:[redacted]"],
    ['{"apiKey": "X1 two"}', '{"apiKey": [redacted]}'],
    // 8. a label in a description, next to an assignment
    ["login with password: X1 or api_key=X2", "login with password: [redacted] or api_key=[redacted]"],
    // 9. token-shaped names
    [`/home/u/${ghpA}/bin`, "/home/u/[redacted]/bin"],
    ["/home/u/.claude/commands/x--api-key=X1.md", "/home/u/.claude/commands/x--api-key=[redacted]"],
    // A credentials file's lines: blanks around `=` at the start of a line.
    ["[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n  password = \"X1\"", "[default]\naws_secret_access_key = [redacted]\n  password = [redacted]"]
  ])("%s", (input, expected) => {
    expect(redactSecrets(input)).toBe(expected)
    expect(redactSecrets(expected)).toBe(expected)
  })

  it.each([
    "--port 5432",
    "--token-file PATH",
    "npm@10.2.0",
    "jane@example.com",
    "Jane Doe <jane.doe+tools@example.co.uk>",
    "ssh://git@github.com/o/r.git",
    "git@github.com:o/r.git",
    "run ${PORT:-5432}",
    "Authorization: Bearer ${GITHUB_TOKEN}",
    "password: ${DB_PASSWORD}",
    "Uses Bearer authentication for the API",
    "Primary key: the id column",
    "keyboard: us",
    "the primary key = id",
    "token == null",
    "token => token.trim()",
    "password = ${DB_PASSWORD}",
    // A JSON schema's property named like a secret is structure, not a value.
    "{\"type\":\"object\",\"properties\":{\"token\":{\"type\":\"string\"},\"api_key\":{\"type\":\"string\"},\"cookies\":[1]}}"
  ])("keeps %s", (text) => {
    expect(redactSecrets(text)).toBe(text)
  })

  it("neutralizes after redacting: a tab before a value does not hide it, controls and lone surrogates become U+FFFD", () => {
    expect(cleanText("--api-key\tX1")).toBe("--api-key\uFFFD[redacted]")
    expect(cleanText("a\u001b[31mb\u202ec\ud800d")).toBe("a\uFFFD[31mb\uFFFDc\uFFFDd")
  })

  it("shows the invisible characters that hide text or fake a name (issue 27, point 15) and keeps the joiners of scripts and emoji", () => {
    const invisible = ["\u00ad", "\u034f", "\u115f", "\u1160", "\u180e", "\u200b", "\u2060", "\u2064", "\u3164", "\ufeff", "\uffa0", "\u{E0001}", "\u{E0041}", "\u{E007F}"]
    for (const char of invisible) expect(neutralize(`read${char}_file`)).toBe("read\uFFFD_file")
    for (const kept of ["ok\u200dok", "\u{1F468}\u200d\u{1F469}", "\u0645\u200c\u06cc", "\u2764\ufe0f", "\u{E0100}", "\u{E0080}"]) expect(neutralize(kept)).toBe(kept)
  })
})

describe("the argument-vector rule", () => {
  it("a script after sh -c is text: only the value goes (the over-redaction of issue 11)", () => {
    expect(redactArgv(["sh", "-c", "TOKEN=X1 exec srv"])).toEqual(["sh", "-c", "TOKEN=[redacted] exec srv"])
    expect(redactArgv(["bash", "-lc", "DB_PASSWORD=X1 srv --port 5432"])).toEqual(["bash", "-lc", "DB_PASSWORD=[redacted] srv --port 5432"])
  })

  it("one argument is one value after --flag= or NAME=, and a header argument's value goes whole", () => {
    expect(redactArgv(["API_KEY=two words", "--password=a b", "-H", "X-Auth-Key: X1 X2", "Authorization: Bearer X1 X2", "Cookie: sid=X1; lang=en"]))
      .toEqual(["API_KEY=[redacted]", "--password=[redacted]", "-H", "X-Auth-Key: [redacted]", "Authorization: Bearer [redacted]", "Cookie: [redacted]"])
  })

  it("the argument after a secret-named flag goes; others stay", () => {
    expect(redactArgv(["--api-key", "X1", "--port", "5432", "--token-file", "/p", "npm@10.2.0", "${DB_PASSWORD:-X1}"]))
      .toEqual(["--api-key", "[redacted]", "--port", "5432", "--token-file", "/p", "npm@10.2.0", "${DB_PASSWORD:-[redacted]}"])
  })
})

const itemFields = {
  host: "claude-code",
  scope: "user",
  enabled: true,
  disabledReason: null,
  sha256: null,
  mtime: null,
  plugin: null
} as const

const agent = (name: string, path: string, shadowedBy: string | null) =>
  new AgentItem({
    ...itemFields,
    kind: "agent",
    name,
    id: `claude-code:agent:user:${path}`,
    path,
    shadowedBy,
    description: `run with --token ${name}-secret`,
    tools: ["Bash(export API_TOKEN=X1)"],
    disallowedTools: ["Bash(mysql --password=X2)"],
    model: null,
    background: false,
    maxTurns: null,
    mcpServers: ["srv --api-key=X3"],
    source: "local"
  })

const withHosts = (items: ReadonlyArray<AgentItem | McpServerItem>, watched: ReadonlyArray<string> = []): Inventory => {
  const base = inventoryOf([toolNamed(ghpA)], { pathDir: `/opt/${ghpB}/bin` })
  return new Inventory({
    ...base,
    agentHosts: new AgentHostsInventory({ hosts: [], items, diagnostics: [] }),
    watch: new WatchSet({ ...base.watch, inputs: watched.map((path) => new WatchedInput({ path, state: "missing" })) })
  })
}

describe("cleanInventory, the boundary of the bundle", () => {
  it("cleans every string field of every record: tools, roots, agent fields that had no redaction of their own", () => {
    const cleaned = cleanInventory(withHosts([agent("a", "/home/u/.claude/agents/a.md", null)]))
    expect([cleaned.tools[0]!.name, cleaned.tools[0]!.path, cleaned.path[0]!.path]).toEqual(["[redacted]", "/bin/[redacted]", "/opt/[redacted]/bin"])
    const item = cleaned.agentHosts.items[0]!
    expect(item.kind === "agent" && [item.description, item.tools, item.disallowedTools, item.mcpServers]).toEqual([
      "run with --token [redacted]",
      ["Bash(export API_TOKEN=[redacted])"],
      ["Bash(mysql --password=[redacted])"],
      ["srv --api-key=[redacted]"]
    ])
    expect(item).toBeInstanceOf(AgentItem)
    expect(isCleaned(cleaned)).toBe(true)
    expect(cleanInventory(cleaned)).toBe(cleaned)
  })

  it("MCP args get the argument-vector rule through the schema's Argv", () => {
    const server = new McpServerItem({
      ...itemFields,
      kind: "mcpServer",
      name: "s",
      id: "claude-code:mcpServer:user:/home/u/.claude.json#s",
      path: "/home/u/.claude.json",
      shadowedBy: null,
      transport: "stdio",
      command: "sh",
      args: ["-c", "TOKEN=X1 exec srv", "--api-key", "X2"],
      url: null,
      envVars: [],
      headerNames: [],
      enabledTools: null,
      disabledTools: [],
      trust: null
    })
    const cleaned = cleanInventory(withHosts([server])).agentHosts.items[0]!
    expect(cleaned.kind === "mcpServer" && cleaned.args).toEqual(["-c", "TOKEN=[redacted] exec srv", "--api-key", "[redacted]"])
  })

  it("ids that one secret told apart stay unique, and shadowedBy follows its item", () => {
    const pathA = `/home/u/.claude/agents/${ghpA}.md`
    const pathB = `/home/u/.claude/agents/${ghpB}.md`
    const first = agent("x", pathA, null)
    const second = agent("x", pathB, first.id)
    const items = cleanInventory(withHosts([first, second])).agentHosts.items
    expect(items.map((item) => [item.id, item.shadowedBy])).toEqual([
      ["claude-code:agent:user:/home/u/.claude/agents/[redacted].md", null],
      ["claude-code:agent:user:/home/u/.claude/agents/[redacted].md~2", "claude-code:agent:user:/home/u/.claude/agents/[redacted].md"]
    ])
  })

  it("a watched path the rule would change leaves the watch set (recorded changed, it would always look missing)", () => {
    const cleaned = cleanInventory(withHosts([], ["/home/u/.claude/agents", `/home/u/${ghpA}/skills`]))
    expect(cleaned.watch.inputs.map((input) => input.path)).toEqual(["/home/u/.claude/agents"])
  })

  it("tools.json holds no secret and no unsafe character, whatever the renderer was given", () => {
    const json = renderInventoryJson(withHosts([agent("a\u001b[2J", "/home/u/.claude/agents/a.md", null)]))
    expect(json).not.toContain("ghp_")
    expect(json).not.toContain("X1")
    expect(json).not.toContain("\\u001b")
    expect(JSON.parse(json).agentHosts.items[0].name).toBe("a\uFFFD[2J")
  })
})

describe("the structural part of the cleaner", () => {
  it("keeps an own __proto__ key a key, and cleans the strings under it", () => {
    const clean = cleanerFor(Schema.Unknown)
    const value = JSON.parse(`{"__proto__": {"command": "--api-key X1"}, "plain": "API_KEY=X2"}`) as Record<string, unknown>
    const cleaned = clean(value) as Record<string, unknown>
    expect(Object.getPrototypeOf(cleaned)).toBe(Object.prototype)
    expect(Object.keys(cleaned)).toEqual(["__proto__", "plain"])
    expect(JSON.stringify(cleaned)).toBe(`{"__proto__":{"command":"--api-key [redacted]"},"plain":"API_KEY=[redacted]"}`)
  })
})

describe("wellFormed: exact strings made valid for JSON readers", () => {
  it("replaces each lone surrogate with U+FFFD and keeps everything else, pairs and controls included", () => {
    expect(wellFormed("a\ud800b\udc00c\ud83d\ude00\u001b[31m\n")).toBe("a\uFFFDb\uFFFDc\ud83d\ude00\u001b[31m\n")
    expect(wellFormed("\udc00\ud800")).toBe("\uFFFD\uFFFD")
  })

  it.prop("leaves no lone surrogate, changes nothing else, and agrees with neutralize on surrogates", [
    fc.string({ unit: "binary", maxLength: 40 })
  ], ([text]) => {
    const well = wellFormed(text)
    expect(well).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/)
    expect([...well].filter((char) => char !== "\uFFFD").join("")).toBe([...text].filter((char) => char.length === 2 || !/[\ud800-\udfff\uFFFD]/.test(char)).join(""))
    expect(neutralize(well)).toBe(neutralize(text))
  })
})
