/**
 * Hostile downstream tool names (issue 27, point 11): a name outside `[A-Za-z0-9_-]`, or one
 * that would make the listed name longer than a host takes, is listed under a safe, stable
 * name (cleaned, cut, and a hash of the server's name), and a direct call or `tools_call` of
 * that name reaches the tool under the server's own name.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { escapedName, listedToolNames, MAX_LISTED_NAME } from "../../../src/mcp/gateway/toolNames.js"
import { fixture, namesOf, tempDir, textOf, withGateway } from "./harness.js"

const ENTRY = ["tools_ls", "tools_load", "tools_unload", "tools_call", "tools_find", "tools_route", "skills_find", "skills_route"]

/** The names the gateway lists for test/mcp/fixtures/hostilenames.mjs, in its order. */
const LISTED = [
  "mcp__hostilenames__fine_name",
  "mcp__hostilenames__esc_31mred_00308786",
  "mcp__hostilenames__osc_0_title_6abb7d3f",
  "mcp__hostilenames__nul_byte_a9512ba6",
  "mcp__hostilenames__new_line_58fb6729",
  "mcp__hostilenames__rlo_evil_9c381139",
  "mcp__hostilenames__zw_space_4aa42dbe",
  "mcp__hostilenames__lone_surrogate_b0bc7ddc",
  "mcp__hostilenames__xxxxxxxxxxxxxxxxxxxxx_2e92ea4b",
  "mcp__hostilenames__dotted_name_10c733ab",
  "mcp__hostilenames__zw_space"
]

let dir: string
let remove: () => void

beforeEach(() => {
  ;({ dir, remove } = tempDir("tool-map-gateway-names-"))
})
afterEach(() => remove())

describe("hostile tool names", () => {
  it("lists only names of 1-49 characters of [A-Za-z0-9_-], and calls reach the tool under its own name", async () => {
    await withGateway({ servers: [fixture("hostilenames", "hostilenames.mjs")], dataDir: dir }, async ({ client }) => {
      await client.callTool({ name: "tools_load", arguments: { targets: ["hostilenames"] } })
      const listed = namesOf((await client.listTools()).tools)
      expect(listed.filter((name) => !/^[A-Za-z0-9_-]{1,49}$/.test(name))).toEqual([])
      // A group's tools come in the catalog's order, by name.
      expect(listed).toEqual([...ENTRY, ...[...LISTED].sort()])
      for (const [index, name] of LISTED.entries()) {
        expect(textOf(await client.callTool({ name, arguments: {} }))).toBe(`called ${index}`)
        expect(textOf(await client.callTool({ name: "tools_call", arguments: { name, arguments: {} } }))).toBe(`called ${index}`)
      }
    })
  })

  it("says on stderr, with the characters escaped, which tool is listed under which name", () => {
    expect(escapedName("esc\u001b[31mred\u202e\u200b\ud800")).toBe("esc\\u{1b}[31mred\\u{202e}\\u{200b}\\u{d800}")
    expect(escapedName("x".repeat(5011))).toBe(`${"x".repeat(80)}…`)
  })

  it("keeps a well-formed name that fits, and maps the others to names that are stable and never taken twice", () => {
    const raw = ["fine", "a.b", "a_b", "a\u200bb", "y".repeat(60)]
    const names = listedToolNames("srv", raw)
    expect(names[0]).toBe("mcp__srv__fine")
    expect(names[2]).toBe("mcp__srv__a_b")
    expect(new Set(names).size).toBe(raw.length)
    expect(names.every((name) => name !== undefined && name.length <= MAX_LISTED_NAME && /^[A-Za-z0-9_-]+$/.test(name))).toBe(true)
    expect(listedToolNames("srv", [...raw].reverse())).toEqual([...names].reverse())
    // 49 characters in all are kept; 50 are cut to 49 with the hash.
    const fits = "f".repeat(MAX_LISTED_NAME - "mcp__srv__".length)
    expect(MAX_LISTED_NAME).toBe(49)
    expect(listedToolNames("srv", [fits, `${fits}g`])).toEqual([`mcp__srv__${fits}`, `mcp__srv__${"f".repeat(30)}_0e370f9b`])
    // A name given twice is listed once.
    expect(listedToolNames("srv", ["a.b", "a.b"])).toEqual([names[1], undefined])
    // A well-formed name that takes the mapped name of another keeps its own; the other gets a longer hash.
    const bait = listedToolNames("srv", ["a.b", names[1]!.slice("mcp__srv__".length)])
    expect(bait[1]).toBe(names[1])
    expect(bait[0]).not.toBe(names[1])
    expect(bait[0]!.startsWith("mcp__srv__a_b_")).toBe(true)
  })
})
