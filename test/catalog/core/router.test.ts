import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { buildCatalog } from "../../../src/catalog/core/catalog.js"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import { nameKey, terms, words } from "../../../src/catalog/core/router/analyze.js"
import { reciprocalRankFusion } from "../../../src/catalog/core/router/fusion.js"
import { addDocuments, buildIndex, splitRunTogether } from "../../../src/catalog/core/router/invertedIndex.js"
import { DEFAULT_RANK_PARAMETERS, explainMatch, rankDocuments, type RankParameters, wordsUnknownTo } from "../../../src/catalog/core/router/rank.js"
import { builtRankIndex, type RankIndex } from "../../../src/catalog/core/router/rankIndex.js"
import { routerDocuments } from "../../../src/catalog/core/router/router.js"
import { WordTable } from "../../../src/catalog/core/router/wordTable.js"
import { planRoute, renderToolsFind, type ToolHit } from "../../../src/catalog/core/router/routerTools.js"
import { object, ROUTER_FIXTURE } from "./routerFixture.js"

const rankerOf = (schemas: ReadonlyArray<ToolSchema>) => {
  const index = buildIndex(routerDocuments(buildCatalog(schemas), schemas))
  return {
    index,
    rank: (query: string, limit = 10) => rankDocuments(index, { query, limit }).map((hit) => index.documents[hit.position]!.document.name)
  }
}

describe("router analysis", () => {
  it("splits names on _, -, __, camelCase and digits, and lowercases", () => {
    expect(words("mcp__github__getPullRequest2 HTTPServer v2parse API-get-user")).toEqual([
      "mcp", "github", "get", "pull", "request", "2", "http", "server", "v", "2", "parse", "api", "get", "user"
    ])
  })

  it("drops stop words and stems the rest", () => {
    expect(terms("Can you please create the issues for me")).toEqual(["creat", "issu"])
  })

  it("keys a name without separators or case", () => {
    expect(nameKey("Get-File_Info")).toBe("getfileinfo")
  })

  it.prop("keys a name as its words joined", { name: fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: fc.constantFrom("a", "Z", "9", "_", "-", " ", "é", "Σ", "ς", "İ", "\u{1F600}") })) }, ({ name }) => {
    expect(nameKey(name)).toBe(words(name).join(""))
  })

  it("splits a run-together name into words its own texts spell", () => {
    expect(splitRunTogether("airqualityforecast", new Set(["air", "quality", "forecast", "the"]))).toEqual(["air", "quality", "forecast"])
    expect(splitRunTogether("zzzzzzqualityzzzz", new Set(["quality"]))).toEqual([])
  })
})

describe("WordTable", () => {
  const pieceArb = fc.constantFrom("get", "User", "HTTP", "Server", "v2", "parse", "_", "-", " ", "\n", "é", "ΟΔΟΣ", "x9", "ABCdef", "a", "42")

  it.prop("reads the words of a text as `words` does, a new word once", { texts: fc.array(fc.array(pieceArb, { maxLength: 12 }).map((parts) => parts.join("")), { maxLength: 8 }) }, ({ texts }) => {
    const table = new WordTable()
    const seen = new Map<string, number>()
    const met: Array<string> = []
    for (const text of texts) {
      const out: Array<number> = []
      table.idsOf(text, (word) => {
        met.push(word)
        return word === "a" ? -1 : met.length
      }, out)
      const expected = words(text).flatMap((word) => {
        if (!seen.has(word)) seen.set(word, word === "a" ? -1 : seen.size + 1)
        const id = seen.get(word)!
        return id >= 0 ? [id] : []
      })
      expect(out).toEqual(expected)
    }
    expect(met).toEqual([...seen.keys()])
    expect(table.size).toBe(seen.size)
  })
})

describe("rankDocuments", () => {
  const { index, rank } = rankerOf(ROUTER_FIXTURE)

  it("ranks a fixture exactly", () => {
    // The lexicon relates "message" to "content" (one of its senses) and "issue" to "public" and
    // "content": loose relatives, they bring in a tool that holds no word of the task, last.
    expect(rank("post a message in the channel")).toEqual(["mcp__slack__post_message", "mcp__slack__list_channels", "read_text_file"])
    expect(rank("list the channels of the workspace")).toEqual(["mcp__slack__list_channels", "mcp__slack__post_message"])
    expect(rank("create an issue")).toEqual(["mcp__github__create_issue", "mcp__slack__list_channels", "read_text_file"])
    // The server's name lifts its other tools (server-level evidence), below the one that matches.
    expect(rank("search github code")).toEqual(["mcp__github__search_code", "mcp__github__create_issue", "mcp__github__delete_repository"])
    // The best hit lends its terms to re-rank the others; its category, code (the default classifier's), lifts search_code.
    expect(rank("remove the repository")).toEqual(["mcp__github__delete_repository", "mcp__github__search_code", "mcp__github__create_issue"])
    // Parameter descriptions and enum values are fields too.
    expect(rank("show me what a file contains")).toEqual(["read_text_file"])
    expect(rank("latin1 encoded text")).toEqual(["read_text_file", "mcp__slack__post_message"])
    expect(rank("nothing here matches")).toEqual([])
  })

  it("puts the tool whose name is the task first, by full or short name", () => {
    expect(rank("mcp__slack__list_channels")[0]).toBe("mcp__slack__list_channels")
    expect(rank("delete_repository")[0]).toBe("mcp__github__delete_repository")
    expect(rank("use post_message to say hi")[0]).toBe("mcp__slack__post_message")
  })

  it("says which fields held which words of the task", () => {
    const position = index.byId.get("mcp__slack__post_message")!
    expect(explainMatch(index, position, "post to the slack channel")).toEqual([
      { field: "name", words: ["post"] },
      { field: "group", words: ["slack"] },
      { field: "description", words: ["post", "slack", "channel"] },
      { field: "parameters", words: ["post", "channel"] }
    ])
  })

  it("keeps only the documents a filter keeps", () => {
    const slack = (position: number) => index.documents[position]!.document.group === "slack"
    expect(rankDocuments(index, { query: "github issue message", limit: 5, keep: slack }).map((hit) => index.documents[hit.position]!.document.name))
      .toEqual(["mcp__slack__post_message", "mcp__slack__list_channels"])
  })

  it("ranks as before after a ranking that threw at any read of a term's postings (its buffers go back clean)", () => {
    const view = builtRankIndex(index)
    let calls = 0
    let failAt = -1
    const flaky: RankIndex = {
      ...view,
      postings: (id) => {
        if (calls++ === failAt) throw new Error("flaky")
        return view.postings(id)
      }
    }
    const ranked = () => rankDocuments(flaky, { query: "post a message in the channel", limit: 10 }).map((hit) => [hit.position, hit.score, hit.exact])
    ranked()
    // Reads of a warm index (the first ranking derives what later ones reuse).
    calls = 0
    const expected = ranked()
    const reads = calls
    expect(reads).toBeGreaterThan(4)
    for (failAt = 0; failAt < reads; failAt++) {
      calls = 0
      expect(ranked).toThrow("flaky")
      calls = 0
      const at = failAt
      failAt = -1
      expect(ranked()).toEqual(expected)
      failAt = at
    }
  })

  it("ranks an index extended with new tools as one built with all of them", () => {
    const grown = [...ROUTER_FIXTURE, { name: "mcp__jira__create_ticket", description: "Open a ticket for a bug.", inputSchema: object({}) }]
    const extended = buildIndex(routerDocuments(buildCatalog(ROUTER_FIXTURE), ROUTER_FIXTURE))
    const catalog = buildCatalog(grown)
    addDocuments(extended, routerDocuments(catalog, grown).filter((document) => !extended.byId.has(document.id)))
    const fresh = rankerOf(grown)
    for (const query of ["open a bug ticket", "create an issue", "post a message"]) {
      expect(rankDocuments(extended, { query, limit: 5 }).map((hit) => extended.documents[hit.position]!.document.name)).toEqual(fresh.rank(query, 5))
    }
  })
})

describe("rankDocuments: vocabulary learned from the catalog", () => {
  // Forty tools that share no word with the task, so that the catalog has statistics to learn from.
  const filler = Array.from({ length: 40 }, (_, i): ToolSchema => ({
    name: `widget_${i}`,
    description: `Handles widget number ${i} of the fleet.`,
    inputSchema: object({})
  }))
  const rankWith = (schemas: ReadonlyArray<ToolSchema>, query: string, parameters: RankParameters) => {
    const index = buildIndex(routerDocuments(buildCatalog(schemas), schemas))
    return rankDocuments(index, { query, limit: 5 }, parameters).map((hit) => index.documents[hit.position]!.document.name)
  }

  it("brings in a tool that holds a word the catalog uses with the task's (co-occurrence)", () => {
    const schemas = [
      ...filler,
      { name: "move_item", description: "Move an item to another folder (a directory on disk).", inputSchema: object({}) },
      { name: "copy_item", description: "Copy an item into a folder, that is a directory.", inputSchema: object({}) },
      { name: "make_directory", description: "Create a directory.", inputSchema: object({}) }
    ]
    expect(rankWith(schemas, "new folder", DEFAULT_RANK_PARAMETERS)).toEqual(["copy_item", "move_item", "make_directory"])
    expect(rankWith(schemas, "new folder", { ...DEFAULT_RANK_PARAMETERS, cooccurrenceWeight: 0 })).toEqual(["copy_item", "move_item"])
    // A catalog of a few tools has no statistics: nothing is brought in.
    expect(rankWith(schemas.slice(40), "new folder", DEFAULT_RANK_PARAMETERS)).toEqual(["copy_item", "move_item"])
  })

  it("counts a task word the catalog does not hold as its longest known prefix", () => {
    const schemas = [
      ...filler,
      { name: "house_search", description: "Find a house to rent.", inputSchema: object({}) },
      { name: "car_hire", description: "Book a car.", inputSchema: object({}) }
    ]
    expect(rankWith(schemas, "rental", DEFAULT_RANK_PARAMETERS)).toEqual(["house_search"])
    expect(rankWith(schemas, "rental", { ...DEFAULT_RANK_PARAMETERS, prefixTermWeight: 0 })).toEqual([])
    // A prefix of fewer than four letters is none ("car" of "carton").
    expect(rankWith(schemas, "carton", DEFAULT_RANK_PARAMETERS)).toEqual([])
  })

  it("adds an embedder's related words to the task's, each at its weight, none the task or the lexicon already gives", () => {
    const schemas = [
      { name: "send_mail", description: "Send an email.", inputSchema: object({}) },
      { name: "post_note", description: "Post a note to a channel.", inputSchema: object({}) },
      { name: "read_note", description: "Read a note.", inputSchema: object({}) }
    ]
    const index = buildIndex(routerDocuments(buildCatalog(schemas), schemas))
    expect(wordsUnknownTo(index, "ping the team channel")).toEqual(["ping", "team"])
    const ranked = (query: string, related: ReadonlyArray<{ word: string; weight: number }>) =>
      rankDocuments(index, { query, limit: 5, related }).map((hit) => index.documents[hit.position]!.document.name)
    expect(ranked("ping the team", [])).toEqual([])
    expect(ranked("ping the team", [{ word: "channel", weight: 0.3 }, { word: "unheard", weight: 1 }])).toEqual(["post_note"])
    // A related word's weight orders the tools it brings (read_note, the shorter, before post_note).
    expect(ranked("ping the team", [{ word: "email", weight: 0.2 }, { word: "note", weight: 0.4 }])).toEqual(["read_note", "post_note", "send_mail"])
    expect(ranked("ping the team", [{ word: "email", weight: 0.6 }, { word: "note", weight: 0.4 }])).toEqual(["send_mail", "read_note", "post_note"])
    // The task's own word keeps its weight: "email" related at 5 changes nothing.
    expect(ranked("email a note", [{ word: "email", weight: 5 }])).toEqual(ranked("email a note", []))
  })
})

const wordArb = fc.constantFrom(
  "alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "lambda", "theta", "zeta", "record", "table", "message", "branch", "invoice"
)
const toolArb = fc.record({
  name: fc.array(wordArb, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("_")),
  description: fc.array(wordArb, { minLength: 2, maxLength: 8 }).map((parts) => parts.join(" "))
}).map((tool): ToolSchema => ({ ...tool, inputSchema: object({}) }))
const toolSetArb = fc.uniqueArray(toolArb, { minLength: 2, maxLength: 12, selector: (tool) => tool.name })
// Adding a tool moves every idf and the average lengths: in a collection of a handful of tools
// that is a large move, so the invariance is stated for catalogs of some size.
const largerToolSetArb = fc.uniqueArray(toolArb, { minLength: 10, maxLength: 30, selector: (tool) => tool.name })

describe("rankDocuments properties", () => {
  it.prop("a tool whose exact name is the task ranks first", { tools: toolSetArb, pick: fc.nat() }, ({ tools, pick }) => {
    const target = tools[pick % tools.length]!
    expect(rankerOf(tools).rank(target.name, 1)).toEqual([target.name])
  })

  it.prop("is deterministic: the same input gives the same order", { tools: toolSetArb, task: fc.array(wordArb, { minLength: 1, maxLength: 4 }) }, ({ tools, task }) => {
    const query = task.join(" ")
    expect(rankerOf(tools).rank(query)).toEqual(rankerOf([...tools]).rank(query))
  })

  it.prop(
    "adding a tool that shares no word with the task does not change a clear top result",
    { tools: largerToolSetArb, task: fc.array(wordArb, { minLength: 1, maxLength: 3 }) },
    ({ tools, task }) => {
      const query = task.join(" ")
      const before = rankerOf(tools)
      const hits = rankDocuments(before.index, { query, limit: 2 })
      // A near tie may flip when the collection's statistics move: only a clear lead is pinned.
      // Feedback from the best hit widens whatever lead the first pass found, so the lead is
      // judged before feedback as well.
      const firstPass = rankDocuments(before.index, { query, limit: 2 }, { ...DEFAULT_RANK_PARAMETERS, feedbackWeight: 0 })
      const clear = (top: ReadonlyArray<{ readonly score: number }>) => top.length === 1 || top[0]!.score >= top[1]!.score * 1.25
      fc.pre(hits.length > 0 && clear(hits) && clear(firstPass))
      const unrelated: ToolSchema = { name: "unrelated_xylophone", description: "quartz xylophone yonder", inputSchema: object({}) }
      expect(rankerOf([...tools, unrelated]).rank(query, 1)).toEqual([before.index.documents[hits[0]!.position]!.document.name])
    }
  )
})

describe("reciprocalRankFusion", () => {
  it("merges rankings by 1/(60 + rank), ties in first-appearance order", () => {
    // 3: 1/63 + 1/61 is a hair over 2: 1/62 + 1/62.
    expect(reciprocalRankFusion([[1, 2, 3], [3, 2, 9]]).map((hit) => hit.position)).toEqual([3, 2, 1, 9])
    expect(reciprocalRankFusion([[1, 2], [2, 1]]).map((hit) => hit.position)).toEqual([1, 2])
  })
})

const hit = (name: string, score: number, tokens: number, loaded = false): ToolHit => ({
  name, path: `/x/${name}`, summary: `${name} summary`, tokens, score, highRisk: false, loaded, matched: []
})

describe("planRoute", () => {
  it("takes the strong hits in rank order within the budget and says why each other was left out", () => {
    const plan = planRoute([hit("a", 10, 300), hit("b", 9, 900), hit("c", 8, 200, true), hit("d", 7, 100), hit("e", 4, 50)], 1000)
    expect(plan.load.map((h) => h.name)).toEqual(["a", "d"])
    expect(plan.leftOut).toEqual([
      { _tag: "OverBudget", name: "b", tokens: 900, left: 700 },
      { _tag: "Loaded", name: "c" },
      { _tag: "WeakMatch", name: "e", score: 4, best: 10 }
    ])
  })
})

describe("renderToolsFind", () => {
  it("shows marks, score, path, size, summary and why", () => {
    expect(renderToolsFind("post", [{ ...hit("p", 3.14159, 1200, true), highRisk: true, matched: [{ field: "name", words: ["post"] }] }])).toBe([
      "1 tool for \"post\", best first (load with tools_load, or find and load at once with tools_route):",
      "  *! 3.14  /x/p  ~1.2k tok  p summary",
      "        why: name: post"
    ].join("\n"))
  })
})
