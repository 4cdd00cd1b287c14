import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option } from "effect"
import { decodeInventoryJson } from "../../../src/inventory/bundle/inventoryDecode.js"
import { Inventory, RootReport } from "../../../src/inventory/domain/inventory.js"
import { renderInventoryJson } from "../../../src/inventory/render/inventoryJson.js"
import { whichTool } from "../../../src/inventory/domain/which.js"
import { filterTools, filterToolsInterruptibly } from "../../../src/inventory/query/toolQueries.js"
import { inventoryOf, toolNamed } from "../../support/inventory.js"

describe("filterTools", () => {
  const inventory = inventoryOf([
    toolNamed("python3.12", { alsoAt: ["/bin/python3"], category: "runtimes" }),
    toolNamed("git", { category: "version-control" }),
    toolNamed("gh", { category: "version-control" }),
    toolNamed(".hidden")
  ])
  const names = (tools: ReadonlyArray<{ readonly name: string }>) => tools.map((tool) => tool.name)

  it.effect("matches names and aliases by glob, and categories exactly; the effect gives the same tools", () =>
    Effect.gen(function* () {
      const cases = [
        { category: Option.none(), name: Option.some("python3") },
        { category: Option.none(), name: Option.some("{git,gh}") },
        { category: Option.some("version-control"), name: Option.some("g?") },
        { category: Option.none(), name: Option.some("*") },
        { category: Option.some("runtimes"), name: Option.none() }
      ]
      const expected = [["python3.12"], ["git", "gh"], ["gh"], ["python3.12", "git", "gh", ".hidden"], ["python3.12"]]
      expect(cases.map((filters) => names(filterTools(inventory, filters)))).toEqual(expected)
      expect(names((yield* Effect.forEach(cases, (filters) => filterToolsInterruptibly(inventory, filters))).flat())).toEqual(expected.flat())
    }))

  it.live("a long filter is interrupted while it runs: it lets the event loop run", () =>
    Effect.gen(function* () {
      // 20,000 names of 250 characters against a glob of 1,000: about a minute of matching.
      const big = inventoryOf(Array.from({ length: 20_000 }, (_, index) => toolNamed(`${"a".repeat(240)}${String(index).padStart(10, "0")}`)))
      const fiber = yield* Effect.fork(filterToolsInterruptibly(big, { category: Option.none(), name: Option.some(`${"*a".repeat(499)}*b`) }))
      yield* Effect.sleep("200 millis")
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
    }))
})

describe("a record per command name", () => {
  // rustup's proxies: links to one binary in ~/.cargo/bin, which dispatches on the name it is called by.
  const cargoBin = "/home/u/.cargo/bin"
  const rustup = `${cargoBin}/rustup`
  const inventory = inventoryOf([
    toolNamed("cargo", { path: `${cargoBin}/cargo`, root: cargoBin, linkTarget: rustup, sameFileAs: [`${cargoBin}/rustc`, rustup], category: "package-managers" }),
    toolNamed("rustc", { path: `${cargoBin}/rustc`, root: cargoBin, linkTarget: rustup, sameFileAs: [`${cargoBin}/cargo`, rustup], category: "runtimes" }),
    toolNamed("rustup", { path: rustup, root: cargoBin, sameFileAs: [`${cargoBin}/cargo`, `${cargoBin}/rustc`], category: "runtimes" }),
    toolNamed("cargo", { path: "/usr/bin/cargo", root: "/usr/bin", pathIndex: 1, shadowedBy: `${cargoBin}/cargo`, category: "package-managers" })
  ], { pathDir: cargoBin })
  const withUsrBin = new Inventory({ ...inventory, path: [...inventory.path, new RootReport({ ...inventory.path[0]!, path: "/usr/bin", pathIndex: 1 })] })

  it("query tools --name cargo lists the cargo records, not rustup's", () => {
    const rows = filterTools(inventory, { category: Option.none(), name: Option.some("cargo") })
    expect(rows.map((tool) => [tool.name, tool.path, tool.shadowedBy])).toEqual([
      ["cargo", `${cargoBin}/cargo`, null],
      ["cargo", "/usr/bin/cargo", `${cargoBin}/cargo`]
    ])
  })

  it("query which cargo: the link wins under its own name, the copy of a later PATH dir is shadowed", () => {
    expect(whichTool(withUsrBin, "cargo")).toEqual({
      name: "cargo",
      winner: `${cargoBin}/cargo`,
      copies: [
        { path: `${cargoBin}/cargo`, linkTarget: rustup, pathIndex: 0, root: cargoBin, sameFileAs: null, version: null, wins: true },
        { path: "/usr/bin/cargo", linkTarget: null, pathIndex: 1, root: "/usr/bin", sameFileAs: null, version: null, wins: false }
      ]
    })
  })

  it("tools.json keeps sameFileAs; a bundle written before it existed (other names in alsoAt) still decodes and answers which", () => {
    const written = decodeInventoryJson(renderInventoryJson(inventory))
    expect(Option.map(written, (read) => read.tools.map((tool) => tool.sameFileAs))).toEqual(
      Option.some([[`${cargoBin}/rustc`, rustup], [`${cargoBin}/cargo`, rustup], [`${cargoBin}/cargo`, `${cargoBin}/rustc`], undefined])
    )
    const old = JSON.parse(renderInventoryJson(inventoryOf([toolNamed("rustup", { alsoAt: ["/bin/cargo"] })]))) as { tools: Array<Record<string, unknown>> }
    for (const tool of old.tools) delete tool.sameFileAs
    const read = decodeInventoryJson(JSON.stringify(old))
    expect(Option.map(read, (inv) => [inv.tools[0]!.sameFileAs, whichTool(inv, "cargo").winner])).toEqual(Option.some([undefined, "/bin/cargo"]))
  })
})
