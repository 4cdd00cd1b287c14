import { describe, expect, it } from "@effect/vitest"
import { buildCatalog } from "../../../src/catalog/core/catalog.js"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import { buildIndex } from "../../../src/catalog/core/router/invertedIndex.js"
import { DEFAULT_RANK_PARAMETERS, rankDocuments, type RankParameters, severalNeeds } from "../../../src/catalog/core/router/rank.js"
import { routerDocuments } from "../../../src/catalog/core/router/router.js"
import { object } from "./routerFixture.js"

const text = (description: string) => ({ type: "string", description })

const TOOLS: ReadonlyArray<ToolSchema> = [
  { name: "calendar.create_event", description: "Create a calendar event with a title and a start time.", inputSchema: object({ title: text("Title of the event"), start: text("Start time of the event") }) },
  { name: "calendar.update_event", description: "Update a calendar event: its title or its start time.", inputSchema: object({ event_id: text("The event"), title: text("New title of the event") }) },
  { name: "calendar.delete_event", description: "Delete a calendar event.", inputSchema: object({ event_id: text("The event to delete") }) },
  { name: "weather.forecast", description: "Weather forecast for a city.", inputSchema: object({ city: text("The city") }) },
  { name: "maps.directions", description: "Directions between two places.", inputSchema: object({ origin: text("Start place"), destination: text("End place") }) }
]

const index = buildIndex(routerDocuments(buildCatalog(TOOLS), TOOLS))
const rank = (query: string, parameters: RankParameters) =>
  rankDocuments(index, { query, limit: 3 }, parameters).map((hit) => [index.documents[hit.position]!.document.name, Number(hit.score.toFixed(2))])

describe("rankDocuments: sibling diversity", () => {
  const task = "Create a calendar event titled standup, then check the forecast"

  it("lets the tool of the task's second need pass a sibling that only repeats what the first matched", () => {
    expect(rank(task, { ...DEFAULT_RANK_PARAMETERS, diversity: 0 })).toEqual([
      ["calendar.create_event", 6.21], ["calendar.update_event", 3.11], ["weather.forecast", 2.41]
    ])
    // update_event holds only terms create_event holds: 3.11 × (1 - 0.5) falls under 2.41; the
    // moved-down hit takes the score of the one moved above it, so the list stays best first.
    expect(rank(task, { ...DEFAULT_RANK_PARAMETERS, diversity: 0.5 })).toEqual([
      ["calendar.create_event", 6.21], ["weather.forecast", 2.41], ["calendar.update_event", 2.41]
    ])
  })

  it("keeps the order and the scores when the lowered score still leads (the default 0.2: 3.11 × 0.8 > 2.41)", () => {
    expect(rank(task, DEFAULT_RANK_PARAMETERS)).toEqual(rank(task, { ...DEFAULT_RANK_PARAMETERS, diversity: 0 }))
  })
  it("leaves a task that joins no clauses or sentences as it was", () => {
    const one = "Create a calendar event titled standup, check the forecast"
    expect(severalNeeds(one)).toBe(false)
    expect(rank(one, { ...DEFAULT_RANK_PARAMETERS, diversity: 0.5 })).toEqual(rank(one, { ...DEFAULT_RANK_PARAMETERS, diversity: 0 }))
    expect([task, "Book a flight and a hotel", "Find a PDF. Then mail it", "Also list my repos", "Is it up? Restart it"].map(severalNeeds)).toEqual([true, true, true, true, true])
    expect(["Find the Android app", "Send e.g. a note", "version 1.2 of it", "thenable promises"].map(severalNeeds)).toEqual([false, false, false, false])
  })
})
