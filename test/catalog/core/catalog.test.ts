import { describe, expect, it } from "@effect/vitest"
import {
  buildCatalog,
  DEFAULT_CATEGORIES,
  factsOf,
  keyOfHashes,
  MISC_GROUP,
  OVERRIDE_PRIORITY,
  primeDefinitionFacts,
  primeToolSetKey,
  resolveTarget,
  searchCatalog,
  shortName,
  structuralGroup,
  summary,
  toolSetKey,
  toolsUnder,
  UNCATEGORIZED
} from "../../../src/catalog/core/catalog.js"
import type { BuildOptions } from "../../../src/catalog/core/catalog.js"
import { mergeMeta } from "../../../src/catalog/core/classify.js"
import { definitionFacts, sha256 } from "../../../src/catalog/core/definitions.js"
import type { Catalog, Resolution, Resolver, ToolSchema } from "../../../src/catalog/core/model.js"

const tool = (name: string, description = `Does ${name}.`, extra: Partial<ToolSchema> = {}): ToolSchema => ({
  name,
  description,
  inputSchema: { type: "object", properties: { value: { type: "string" } } },
  ...extra
})

const TOOLS: ReadonlyArray<ToolSchema> = [
  tool("mcp__github__create_issue", "Create a new issue in a GitHub repository. Needs a token."),
  tool("mcp__github__delete_repo", "Delete a repository for good."),
  tool("mcp__github__search_code", "Search code across repositories."),
  tool("mcp__fs__read_file", "Read the complete contents of a file.", { annotations: { readOnlyHint: true } }),
  tool("mcp__fs__write_file", "Create or overwrite a file."),
  tool("fetch_url", "Fetch a URL and return its text."),
  tool("calendar_list", "List calendar events.")
]

const OPTIONS: BuildOptions = {
  classifiers: [{
    id: "code",
    priority: 10,
    classify: (t) => (t.name.startsWith("mcp__github__") ? { category: "code" } : undefined)
  }],
  annotations: { package: { calendar_list: { category: "productivity", group: "calendar" } } },
  categories: [
    { name: "code", description: "Source hosting and reviews" },
    { name: "productivity", description: "Calendars and notes" },
    {
      name: "pack",
      description: "A starter pack",
      tools: ["mcp__github__search_code", "mcp__fs__read_file", "not_a_tool"]
    }
  ]
}

const CATALOG = buildCatalog(TOOLS, OPTIONS)

const paths = (catalog: Catalog) => catalog.tools.map((t) => t.path)
const names = (resolution: Resolution) => ("tools" in resolution ? resolution.tools.map((t) => t.name) : [])

describe("names", () => {
  it("splits mcp__server__tool names into a structural group and a short name", () => {
    expect(structuralGroup("mcp__github__create_issue")).toBe("github")
    expect(shortName("mcp__github__create_issue")).toBe("create_issue")
    expect(structuralGroup("mcp__my_server__get__nested")).toBe("my_server")
    expect(shortName("mcp__my_server__get__nested")).toBe("get__nested")
    for (const name of ["read_file", "mcp__", "mcp____x", "mcp__server__", "mcp_x__y"]) {
      expect(structuralGroup(name)).toBeUndefined()
      expect(shortName(name)).toBe(name)
    }
  })

  it("summarizes a description as its first sentence on one line", () => {
    expect(summary("Read a file. Then more text.")).toBe("Read a file.")
    expect(summary("\n\n  First   line\there\nsecond line")).toBe("First line here")
    expect(summary("Use e.g. grep or i.e. this. Done.")).toBe("Use e.g. grep or i.e. this.")
    expect(summary("Version 2.0 is out! Celebrate.")).toBe("Version 2.0 is out!")
    expect(summary("")).toBe("")
    // A long first line: only its beginning, with whitespace runs collapsed, decides.
    expect(summary(`Lists   things\tfor you. ${"more ".repeat(100)}`)).toBe("Lists things for you.")
    expect(summary(`${"a".repeat(150)}${" ".repeat(300)}b. c`)).toBe(`${"a".repeat(119)}…`)
    expect(summary(`No. 5 is ${"x ".repeat(100)}`)).toBe(`No. 5 is ${"x ".repeat(54)}x…`)
    const long = summary(`${"word ".repeat(40)}end.`)
    expect(long).toBe(`${"word ".repeat(23)}word…`)
    expect(long.length).toBeLessThanOrEqual(120)
  })
})

describe("buildCatalog", () => {
  it("places every tool at its exact path /category/group/tool", () => {
    expect(paths(CATALOG)).toEqual([
      "/code/github/create_issue",
      "/code/github/delete_repo",
      "/code/github/search_code",
      "/productivity/calendar/calendar_list",
      "/files/fs/read_file",
      "/files/fs/write_file",
      "/web/misc/fetch_url"
    ])
    // The host's categories first, then the default classifier's (fs is a file server, fetch_url fetches).
    expect(CATALOG.root.children.map((c) => [c.path, c.description, c.toolCount])).toEqual([
      ["/code", "Source hosting and reviews", 3],
      ["/productivity", "Calendars and notes", 1],
      ["/files", "Files and folders: read, write, search, move", 2],
      ["/web", "Fetch pages, crawl sites and search the web", 1],
      ["/uncategorized", "Groups no classifier or annotation has placed yet", 0]
    ])
    expect([...CATALOG.groups.keys()]).toEqual(["github", "calendar", "fs", "misc"])
  })

  it("fills each entry: short name, one-line summary, sanitized description, risk, tokens, hash", () => {
    const entry = CATALOG.byName.get("mcp__github__create_issue")!
    expect(entry).toMatchObject({
      kind: "tool",
      name: "mcp__github__create_issue",
      shortName: "create_issue",
      path: "/code/github/create_issue",
      category: "code",
      group: "github",
      summary: "Create a new issue in a GitHub repository.",
      description: "Create a new issue in a GitHub repository. Needs a token.",
      highRisk: false,
      riskEvidence: [],
      flags: [],
      toolCount: 1
    })
    expect(entry.tokens).toBeGreaterThan(20)
    expect(entry.definitionHash).toMatch(/^[0-9a-f]{64}$/)
  })

  it("marks risk from names and hints: destructive verbs raise it, readOnlyHint never lowers it", () => {
    const risky = CATALOG.tools.filter((t) => t.highRisk).map((t) => [t.name, t.riskEvidence])
    expect(risky).toEqual([
      ["mcp__github__delete_repo", ["name has the verb \"delete\""]],
      ["mcp__fs__write_file", ["name has the verb \"write\""]]
    ])
    const hinted = buildCatalog([tool("mcp__db__drop_table", "Drop.", { annotations: { readOnlyHint: true } })])
    expect(hinted.tools[0]!.highRisk).toBe(true)
    expect(hinted.tools[0]!.riskEvidence).toEqual([
      "name has the verb \"drop\"",
      "MCP readOnlyHint=true ignored: an untrusted hint never lowers risk"
    ])
  })

  it("counts tools and token totals per node", () => {
    const github = CATALOG.byPath.get("/code/github")!
    const sum = toolsUnder(github).reduce((s, t) => s + t.tokens, 0)
    expect(github.toolCount).toBe(3)
    expect(github.tokens).toBe(sum)
    expect(CATALOG.root.toolCount).toBe(7)
    expect(CATALOG.totalTokens).toBe(CATALOG.tools.reduce((s, t) => s + t.tokens, 0))
    expect(CATALOG.root.tokens).toBe(CATALOG.totalTokens)
  })

  it("keeps an empty uncategorized category so a missing classifier shows", () => {
    const catalog = buildCatalog([tool("x")], { annotations: { user: { x: { category: "a", group: "b" } } } })
    expect(catalog.root.children.map((c) => [c.path, c.toolCount])).toEqual([["/a", 1], ["/uncategorized", 0]])
  })

  it("puts mcp tools in their server's group and the rest in the misc group, uncategorized when nothing places them", () => {
    const tools = [tool("mcp__acme__post_status"), tool("mcp__acme__list_widgets"), tool("grep_repo")]
    expect(paths(buildCatalog(tools))).toEqual([
      "/code/misc/grep_repo",
      "/uncategorized/acme/list_widgets",
      "/uncategorized/acme/post_status"
    ])
    expect(paths(buildCatalog(tools, { builtinPlacement: false }))).toEqual([
      "/uncategorized/acme/list_widgets",
      "/uncategorized/acme/post_status",
      "/uncategorized/misc/grep_repo"
    ])
    expect(MISC_GROUP).toBe("misc")
    expect(UNCATEGORIZED).toBe("uncategorized")
    expect(DEFAULT_CATEGORIES.at(-1)?.name).toBe(UNCATEGORIZED)
  })

  it("layers annotations per field: package, then runtime, then user edits", () => {
    expect(OVERRIDE_PRIORITY).toEqual(["package", "runtime", "user"])
    const options: BuildOptions = {
      annotations: {
        package: [{ match: "mcp__a__t", meta: { category: "pkgcat", group: "pkggroup", summary: "From the package." } }],
        runtime: new Map([["mcp__a__t", { group: "rtgroup", highRisk: true }]]),
        user: { mcp__a__t: { category: "usercat", highRisk: false } }
      }
    }
    const entry = buildCatalog([tool("mcp__a__t", "Original. More.")], options).tools[0]!
    expect(entry.path).toBe("/usercat/rtgroup/t")
    expect(entry.summary).toBe("From the package.")
    expect(entry.highRisk).toBe(false)
    expect(entry.riskEvidence).toEqual(["annotation (user): highRisk=false"])
    expect(entry.meta).toEqual({ category: "usercat", group: "rtgroup", summary: "From the package.", highRisk: false })
    expect(mergeMeta(options.annotations, "mcp__a__t")).toEqual(entry.meta)
  })

  it("applies a layer's annotations in order, patterns included; later ones win per field", () => {
    const entry = buildCatalog([tool("mcp__gh__delete_x")], {
      annotations: {
        runtime: [
          { match: /^mcp__gh__/g, meta: { category: "code", group: "gh-all" } },
          { match: "mcp__gh__delete_x", meta: { group: "gh-danger" } },
          { match: /delete/, meta: { category: "danger" } }
        ]
      }
    }).tools[0]!
    expect(entry.path).toBe("/danger/gh-danger/delete_x")
  })

  it("runs classifiers by priority; per field the first answer wins; annotations win over them", () => {
    const options: BuildOptions = {
      classifiers: [
        { id: "low", priority: 1, classify: () => ({ group: "low-group", category: "low-cat" }) },
        { id: "high", priority: 5, classify: () => ({ category: "high-cat" }) },
        { id: "high-later", priority: 5, classify: () => ({ category: "later-cat", group: "later-group" }) },
        { id: "broken", priority: 9, classify: () => { throw new Error("boom") } }
      ]
    }
    const catalog = buildCatalog([tool("a"), tool("b")], {
      ...options,
      annotations: { user: { b: { group: "mine" } } }
    })
    expect(paths(catalog)).toEqual(["/high-cat/later-group/a", "/high-cat/mine/b"])
    expect(catalog.diagnostics).toEqual([{
      kind: "classifier-failed",
      name: "broken",
      detail: "classifier threw on a: boom; its answers were skipped"
    }])
  })

  it("places a group by its definition's claim, else by the category most of its placed tools have", () => {
    const tools = [tool("mcp__fs__a"), tool("mcp__fs__b"), tool("mcp__fs__c"), tool("mcp__db__q"), tool("lone")]
    const byVote = buildCatalog(tools, {
      annotations: { package: { mcp__fs__a: { category: "files" }, lone: { category: "files" } } }
    })
    expect(paths(byVote)).toEqual([
      "/files/fs/a",
      "/files/fs/b",
      "/files/fs/c",
      "/files/misc/lone",
      "/data/db/q"
    ])
    const byClaim = buildCatalog(tools, {
      annotations: { package: { mcp__fs__a: { category: "files" } } },
      categories: [{ name: "storage", description: "Disks", groups: ["fs", "db"] }]
    })
    expect(paths(byClaim)).toEqual([
      "/storage/db/q",
      "/storage/fs/b",
      "/storage/fs/c",
      "/files/fs/a",
      "/uncategorized/misc/lone"
    ])
    expect(resolveTarget(byClaim, "fs")).toMatchObject({
      kind: "group",
      tools: [byClaim.byName.get("mcp__fs__b"), byClaim.byName.get("mcp__fs__c"), byClaim.byName.get("mcp__fs__a")]
    })
  })

  it("orders categories as defined, then by name, uncategorized last, whatever the input order", () => {
    const tools = [tool("z", "z", {}), tool("y"), tool("x"), tool("w")]
    const options: BuildOptions = {
      annotations: { user: { z: { category: "zeta" }, y: { category: "beta" }, x: { category: "alpha" } } },
      categories: [{ name: "zeta", description: "Last letter" }]
    }
    const catalog = buildCatalog(tools, options)
    expect(catalog.root.children.map((c) => c.name)).toEqual(["zeta", "alpha", "beta", "uncategorized"])
    expect(paths(buildCatalog([...tools].reverse(), options))).toEqual(paths(catalog))
  })

  it("gives tools that share a short name in one group their full names as path segments", () => {
    const catalog = buildCatalog([tool("mcp__gh__get"), tool("get"), tool("mcp__gh__put")], {
      annotations: { package: { get: { group: "gh" } } }
    })
    expect(paths(catalog)).toEqual(["/uncategorized/gh/get", "/uncategorized/gh/mcp__gh__get", "/uncategorized/gh/put"])
  })

  it("makes category and group names path-safe", () => {
    const catalog = buildCatalog([tool("t")], { annotations: { user: { t: { category: " My Stuff ", group: "a/b" } } } })
    expect(paths(catalog)).toEqual(["/My-Stuff/a-b/t"])
  })

  it("keeps the first of two tools with one name and reports the other", () => {
    const catalog = buildCatalog([tool("t", "First."), tool("t", "Second."), tool("", "Nameless.")])
    expect(catalog.tools.map((t) => t.description)).toEqual(["First."])
    expect(catalog.diagnostics.map((d) => [d.kind, d.name])).toEqual([["duplicate-name", "t"], ["empty-name", ""]])
  })

  it("sanitizes descriptions and flags what it removed", () => {
    const entry = buildCatalog([tool("t", "\u001b[31mRead\u001b[0m a \u202Efile\u200B.")]).tools[0]!
    expect(entry.description).toBe("Read a file.")
    expect(entry.summary).toBe("Read a file.")
    expect(entry.flags).toEqual(["zero-width", "bidi", "ansi"])
  })

  it("treats alias categories as views: the tools keep their home and are counted once", () => {
    const pack = CATALOG.aliases.get("pack")!
    expect(pack).toMatchObject({ kind: "alias", path: "/pack", description: "A starter pack", toolCount: 2 })
    expect(pack.children.map((t) => t.path)).toEqual(["/code/github/search_code", "/files/fs/read_file"])
    expect(pack.missing).toEqual(["not_a_tool"])
    expect(CATALOG.root.children.map((c) => c.name)).not.toContain("pack")
    expect(toolsUnder(CATALOG.root)).toHaveLength(7)
  })

  it("reports an alias whose name a home category already has", () => {
    const catalog = buildCatalog([tool("a")], {
      annotations: { user: { a: { category: "code" } } },
      categories: [{ name: "code", description: "Alias", tools: ["a"] }]
    })
    expect(resolveTarget(catalog, "/code").kind).toBe("category")
    expect(catalog.aliases.get("code")?.toolCount).toBe(1)
    expect(catalog.diagnostics.map((d) => d.kind)).toEqual(["alias-name-taken"])
  })

  it("has a tool-set key that ignores order and follows any definition change", () => {
    expect(CATALOG.toolSetKey).toBe(toolSetKey(TOOLS))
    expect(toolSetKey([...TOOLS].reverse())).toBe(CATALOG.toolSetKey)
    const changed = TOOLS.map((t, i) => (i === 0 ? { ...t, description: `${t.description} ` } : t))
    expect(toolSetKey(changed)).not.toBe(CATALOG.toolSetKey)
  })
})

describe("primed definition facts", () => {
  it("a build over primed facts is the build over computed ones", () => {
    // Fresh objects, so nothing is cached for them yet.
    const fresh = TOOLS.map((t) => ({ ...t }))
    primeDefinitionFacts(fresh, TOOLS.map(definitionFacts))
    expect(fresh.map(factsOf)).toEqual(TOOLS.map(definitionFacts))
    const primed = buildCatalog(fresh)
    const computed = buildCatalog(TOOLS)
    expect(primed.toolSetKey).toBe(computed.toolSetKey)
    expect(primed.tools.map((t) => [t.name, t.tokens, t.definitionHash])).toEqual(
      computed.tools.map((t) => [t.name, t.tokens, t.definitionHash])
    )
  })

  it("primed facts are taken as given: the caller vouches for them", () => {
    const fresh = [{ ...TOOLS[0]! }]
    primeDefinitionFacts(fresh, [{ hash: sha256("other"), tokens: 7 }])
    expect(buildCatalog(fresh).tools[0]?.tokens).toBe(7)
    expect(factsOf(fresh[0]!).hash).toBe(sha256("other"))
  })

  it("the tool-set key of a list asked for again is the same key, and a changed list gets its own", () => {
    const list = TOOLS.map((t) => ({ ...t }))
    const key = toolSetKey(list)
    expect(toolSetKey([...list])).toBe(key)
    expect(toolSetKey(list.slice(1))).not.toBe(key)
    expect(toolSetKey(list.slice(1))).toBe(keyOfHashes(list.slice(1).map((t) => definitionFacts(t).hash)))
  })

  it("a primed tool-set key is the key of that very list, taken as given", () => {
    const list = TOOLS.map((t) => ({ ...t }))
    const key = toolSetKey(TOOLS)
    primeToolSetKey(list, key)
    expect(toolSetKey(list)).toBe(key)
    expect(buildCatalog(list, {}, toolSetKey(list)).toolSetKey).toBe(buildCatalog(TOOLS).toolSetKey)
    const other = [...list]
    primeToolSetKey(other, sha256("vouched"))
    expect(toolSetKey(other)).toBe(sha256("vouched"))
    expect(toolSetKey([...list])).toBe(key)
  })
})

describe("keyOfHashes", () => {
  it("is the SHA-256 of the hashes sorted as strings and joined by newlines", () => {
    const hex = (i: number) => sha256(`tool ${i}`)
    const reference = (hashes: ReadonlyArray<string>) => sha256([...hashes].sort().join("\n"))
    const few = Array.from({ length: 10 }, (_, i) => hex(i))
    const many = Array.from({ length: 3000 }, (_, i) => hex(i))
    // Hashes sharing their leading digits are ordered by the rest.
    const shared = Array.from({ length: 300 }, (_, i) => `${"0123456789abcdef".repeat(4).slice(0, 60)}${hex(i).slice(0, 4)}`)
    const mixed = [...many.slice(0, 100), ...shared.slice(0, 50), many[5]!, "NOT-HEX", ""]
    for (const hashes of [[], few, many, shared, [...shared, ...many], mixed]) {
      expect(keyOfHashes([...hashes])).toBe(reference(hashes))
    }
  })
})

describe("resolveTarget", () => {
  const capResolver: Resolver = {
    prefix: "cap:",
    resolve: (rest) => (rest === "starter" ? ["mcp__fs__read_file", "/productivity", "bogus"] : undefined)
  }

  it("resolves the root, a category, a group and a tool by path", () => {
    expect(resolveTarget(CATALOG, "/")).toMatchObject({ kind: "root", node: CATALOG.root })
    expect(names(resolveTarget(CATALOG, "/"))).toHaveLength(7)
    expect(resolveTarget(CATALOG, "").kind).toBe("root")
    const category = resolveTarget(CATALOG, "/code/")
    expect(category.kind).toBe("category")
    expect(names(category)).toEqual(["mcp__github__create_issue", "mcp__github__delete_repo", "mcp__github__search_code"])
    const group = resolveTarget(CATALOG, "/files//fs")
    expect(group).toMatchObject({ kind: "group", node: CATALOG.byPath.get("/files/fs") })
    expect(names(group)).toEqual(["mcp__fs__read_file", "mcp__fs__write_file"])
    expect(names(resolveTarget(CATALOG, "/code/github/create_issue"))).toEqual(["mcp__github__create_issue"])
    expect(names(resolveTarget(CATALOG, "/code/github/mcp__github__create_issue"))).toEqual([
      "mcp__github__create_issue"
    ])
  })

  it("resolves bare names: a tool, a group, a category, an alias", () => {
    expect(resolveTarget(CATALOG, "mcp__fs__read_file")).toMatchObject({
      kind: "tool",
      node: CATALOG.byName.get("mcp__fs__read_file")
    })
    expect(resolveTarget(CATALOG, " github ")).toMatchObject({ kind: "group", target: "github" })
    expect(names(resolveTarget(CATALOG, "github"))).toHaveLength(3)
    expect(resolveTarget(CATALOG, "productivity").kind).toBe("category")
    expect(resolveTarget(CATALOG, "pack")).toMatchObject({ kind: "alias", node: CATALOG.aliases.get("pack") })
    expect(names(resolveTarget(CATALOG, "/pack"))).toEqual(["mcp__github__search_code", "mcp__fs__read_file"])
  })

  it("hands a registered prefix to its resolver and resolves what it returns", () => {
    const resolution = resolveTarget(CATALOG, "cap:starter", [capResolver])
    expect(resolution).toMatchObject({
      kind: "resolver",
      prefix: "cap:",
      targets: ["mcp__fs__read_file", "/productivity", "bogus"],
      unresolved: ["bogus"]
    })
    expect(names(resolution)).toEqual(["calendar_list", "mcp__fs__read_file"])
    expect(resolveTarget(CATALOG, "cap:other", [capResolver])).toEqual({
      kind: "unknown",
      target: "cap:other",
      suggestions: []
    })
  })

  it("prefers the longest matching prefix", () => {
    const resolvers: ReadonlyArray<Resolver> = [
      { prefix: "cap:", resolve: () => ["fetch_url"] },
      { prefix: "cap:x:", resolve: () => ["calendar_list"] }
    ]
    expect(names(resolveTarget(CATALOG, "cap:x:y", resolvers))).toEqual(["calendar_list"])
  })

  it("answers an unknown target with suggested paths", () => {
    expect(resolveTarget(CATALOG, "/code/gitlab/issue")).toEqual({
      kind: "unknown",
      target: "/code/gitlab/issue",
      suggestions: ["/code/github/create_issue"]
    })
    expect(resolveTarget(CATALOG, "FS")).toEqual({
      kind: "unknown",
      target: "FS",
      suggestions: ["/files/fs", "/files/fs/read_file", "/files/fs/write_file"]
    })
  })
})

describe("searchCatalog", () => {
  const catalog = buildCatalog([
    tool("lookup", "Search the web for pages."),
    tool("research_notes", "Keep notes."),
    tool("mcp__search__thing", "A thing."),
    tool("mcp__a__search_files", "Find files by name."),
    tool("mcp__s__search", "Plain search."),
    tool("unrelated", "Nothing here.")
  ], { builtinPlacement: false }) // all in /uncategorized, so that a search under /uncategorized/misc has two hits

  it("ranks exact names, then name prefixes, name words, inside names, then descriptions", () => {
    expect(searchCatalog(catalog, "search").tools.map((t) => t.name)).toEqual([
      "mcp__s__search",
      "mcp__a__search_files",
      "mcp__search__thing",
      "research_notes",
      "lookup"
    ])
  })

  it("needs every word, is case-insensitive, and reports the total beside the limit", () => {
    expect(searchCatalog(catalog, "SEARCH files").tools.map((t) => t.name)).toEqual(["mcp__a__search_files"])
    expect(searchCatalog(catalog, "search", { limit: 2 })).toEqual({
      tools: [catalog.byName.get("mcp__s__search"), catalog.byName.get("mcp__a__search_files")],
      total: 5
    })
    expect(searchCatalog(catalog, "   ")).toEqual({ tools: [], total: 0 })
  })

  it("searches only under a node when asked", () => {
    const under = catalog.byPath.get("/uncategorized/misc")!
    expect(searchCatalog(catalog, "search", { under }).tools.map((t) => t.name)).toEqual(["research_notes", "lookup"])
  })

  it("matches group and category names above descriptions", () => {
    const placed = buildCatalog([tool("alpha", "About maps."), tool("beta", "Other.")], {
      annotations: { user: { beta: { category: "maps" } } }
    })
    expect(searchCatalog(placed, "maps").tools.map((t) => t.name)).toEqual(["beta", "alpha"])
  })
})
