import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { buildCatalog } from "../../../src/catalog/core/catalog.js"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import { nameKey, terms, words } from "../../../src/catalog/core/router/analyze.js"
import { buildIndex } from "../../../src/catalog/core/router/invertedIndex.js"
import { rankDocuments } from "../../../src/catalog/core/router/rank.js"
import { routerDocuments } from "../../../src/catalog/core/router/router.js"
import { WordTable } from "../../../src/catalog/core/router/wordTable.js"
import { object } from "./routerFixture.js"

// Five tools of MetaTool's catalog (MIT, `../shared/datasets/metatool/catalog.jsonl`), as written there.
const METATOOL_TOOLS: ReadonlyArray<ToolSchema> = [
  ["ad4mat", "API to monetize outgoing traffic via tracking links."],
  ["Creaticode_Extension_of_MIT_Scratch", "Display Scratch programs as images and write 2D/3D programs using CreatiCode Scratch extensions."],
  ["diceroller", "App for rolling dice using the d20 or Fate/Fudge systems."],
  ["dover_outreach", "Generate a personalized email to someone you're interested in reaching out to for a job opportunity."],
  ["PDF_Exporter", "Export any chat response into a stylized PDF document."],
  ["speak", "Learn how to say anything in another language with Speak, your AI-powered language tutor."]
].map(([name, description]) => ({ name: name!, description: description!, inputSchema: object({}) }))

const rank = (schemas: ReadonlyArray<ToolSchema>, query: string): Array<string> => {
  const index = buildIndex(routerDocuments(buildCatalog(schemas), schemas))
  return rankDocuments(index, { query, limit: 3 }).map((hit) => index.documents[hit.position]!.document.name)
}

describe("router analysis: contractions", () => {
  it("drops the clitic of I'm, I'd, we'll, they're, I've, it's (straight and curly) and joins the t of n't", () => {
    expect(words("I'm I’d we'll they’re I've it's user's DON'T can’t won't")).toEqual([
      "i", "i", "we", "they", "i", "it", "user", "dont", "cant", "wont"
    ])
    expect(terms("I'm sure they're done, I'd say we'll see; I've checked, it's the user’s, don't, can't")).toEqual([
      "sure", "done", "sai", "see", "check", "user"
    ])
  })

  it("leaves other apostrophes and single letters as they were", () => {
    expect(words("rock'n'roll O'Reilly 'quoted' H&M 3D")).toEqual(["rock", "n", "roll", "o", "reilly", "quoted", "h", "m", "3", "d"])
  })

  it("keys a name with an apostrophe as its words joined", () => {
    expect(nameKey("Let's_Go")).toBe("letgo")
  })

  const pieceArb = fc.constantFrom("I", "'", "’", "m", "d", "ll", "re", "ve", "t", "s", "don", "Get", "x9", " ", "_", "é")

  it.prop("reads texts with apostrophes as `words` does", { text: fc.array(pieceArb, { maxLength: 14 }).map((parts) => parts.join("")) }, ({ text }) => {
    const table = new WordTable()
    const out: Array<number> = []
    const met: Array<string> = []
    table.idsOf(text, (word) => met.push(word), out)
    expect(met).toEqual([...new Set(words(text))])
    expect(nameKey(text)).toBe(words(text).join(""))
  })
})

describe("rankDocuments: contractions on MetaTool's task text", () => {
  // Before the rule, "I'd" left the term d, which only the 2D/3D and the d20 tools hold: rare,
  // so the heaviest term of the task (the same text with the apostrophe taken out shows it).
  it("does not lift a tool on the d of I'd", () => {
    const task = "I'd like to order \"beef noodle soup\" in Mandarin. How do I say that?"
    expect(rank(METATOOL_TOOLS, task)).toEqual(["speak"])
    expect(rank(METATOOL_TOOLS, task.replace("'", " "))).toEqual(["speak", "Creaticode_Extension_of_MIT_Scratch", "diceroller"])
  })

  it("finds nothing for a task of contractions alone, where d would have ranked tools", () => {
    expect(rank(METATOOL_TOOLS, "They're asking what I'd pick, and I’m not sure")).toEqual([])
    expect(rank(METATOOL_TOOLS, "They re asking what I d pick, and I m not sure")).toEqual(["Creaticode_Extension_of_MIT_Scratch", "diceroller"])
  })
})
