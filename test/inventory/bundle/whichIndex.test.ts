import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { decodeRecordedBundle, readGeneration } from "../../../src/inventory/bundle/format.js"
import { decodeInventoryJson, renderWhichIndex } from "../../../src/inventory/bundle/inventoryDecode.js"
import { jsonDigest, readWhichIndex, renderWhichIndexOf } from "../../../src/inventory/bundle/whichIndex.js"
import { cleanInventory } from "../../../src/inventory/domain/cleanInventory.js"
import { HostInfo, Inventory, RootReport, VersionReport, WatchedInput, WatchSet } from "../../../src/inventory/domain/inventory.js"
import { renderInventoryJson } from "../../../src/inventory/render/inventoryJson.js"
import { whichTool } from "../../../src/inventory/domain/which.js"
import { TOOL_MAP_VERSION } from "../../../src/version.js"
import { inventoryOf, toolNamed } from "../../support/inventory.js"

const cargoBin = "/home/u/.cargo/bin"
const base = inventoryOf([
  toolNamed("cargo", { path: `${cargoBin}/cargo`, root: cargoBin, linkTarget: `${cargoBin}/rustup`, sameFileAs: [`${cargoBin}/rustup`] }),
  toolNamed("rustup", { path: `${cargoBin}/rustup`, root: cargoBin, sameFileAs: [`${cargoBin}/cargo`] }),
  toolNamed("cargo", { path: "/usr/bin/cargo", root: "/usr/bin", pathIndex: 1, shadowedBy: `${cargoBin}/cargo` }),
  toolNamed("python3.12", { path: "/usr/bin/python3.12", root: "/usr/bin", pathIndex: 1, alsoAt: ["/usr/bin/python3"] }),
  // Names a shell can call that a line-oriented file must not split on.
  toolNamed("tab\there", { path: "/usr/bin/tab\there", root: "/usr/bin", pathIndex: 1 }),
  toolNamed("new\nline", { path: "/usr/bin/new\nline", root: "/usr/bin", pathIndex: 1 }),
  toolNamed("\"quoted\"", { path: "/usr/bin/\"quoted\"", root: "/usr/bin", pathIndex: 1 })
], {
  pathDir: cargoBin,
  versions: [new VersionReport({ name: "cargo", version: "1.80.0", path: `${cargoBin}/cargo`, status: "ok", durationMs: 3, detail: null })]
})
const inventory = new Inventory({
  ...base,
  path: [...base.path, new RootReport({ ...base.path[0]!, path: "/usr/bin", pathIndex: 1 })],
  watch: new WatchSet({ toolMapVersion: TOOL_MAP_VERSION, pathVariable: "p", extraRoots: "e", inputs: [new WatchedInput({ path: "/usr/bin", state: "Directory:1:2:3" })] })
})
const json = renderInventoryJson(inventory)
/** What a query reads of tools.json (its untrusted text neutralized when it was written). */
const read = Option.getOrThrow(decodeInventoryJson(json))
const digestOf = (text: string) => jsonDigest(new TextEncoder().encode(text))
/** readWhichIndex over the bytes of an index text. */
const indexIn = (text: string, jsonSha256: string) => readWhichIndex(new TextEncoder().encode(text), jsonSha256)
const NAMES = ["cargo", "rustup", "python3", "python3.12", "tab\there", "new\nline", "\"quoted\"", "git", "", "\""]

describe("the which index", () => {
  it("rendered from the cleaned inventory a scan encodes is the index derived from the tools.json text, byte for byte", () => {
    expect(renderWhichIndexOf(json, cleanInventory(inventory))).toBe(Option.getOrThrow(renderWhichIndex(json)))
  })

  it("answers every name as whichTool over tools.json does, and records what --if-stale reads of tools.json", () => {
    const index = Option.getOrThrow(indexIn(Option.getOrThrow(renderWhichIndex(json)), digestOf(json)))
    for (const name of NAMES) expect([name, Option.map(index.lookup(name), (copies) => ({ name, ...copies }))]).toEqual([name, Option.some(whichTool(read, name))])
    expect(JSON.stringify(Option.getOrThrow(index.lookup("cargo")))).toBe(JSON.stringify(whichTool(read, "cargo")).replace(/^\{"name":"cargo",/, "{"))
    expect(Option.map(index.lookup("python3"), (copies) => copies.winner)).toEqual(Option.some("/usr/bin/python3"))
    expect(index.recorded).toEqual(Option.getOrThrow(decodeRecordedBundle(json)))
  })

  it("vouches only for the tools.json bytes it was derived from, written by this tool-map", () => {
    const text = Option.getOrThrow(renderWhichIndex(json))
    expect(Option.isNone(indexIn(text, digestOf(`${json} `)))).toBe(true)
    expect(Option.isNone(indexIn(text.replace(`"toolMap":"${TOOL_MAP_VERSION}"`, "\"toolMap\":\"0.0.0-other\""), digestOf(json)))).toBe(true)
    expect(Option.isNone(indexIn(text.slice(0, 40), digestOf(json)))).toBe(true)
    expect(Option.isNone(indexIn("", digestOf(json)))).toBe(true)
  })

  it("an edited, corrupt or cut line makes the whole index count as none (the reader then reads tools.json)", () => {
    const text = Option.getOrThrow(renderWhichIndex(json))
    const edited = text.replace(/\n"rustup"\t\{"winner":"[^"]*"/, "\n\"rustup\"\t{\"winner\":\"/elsewhere/rustup\"")
    expect(edited).not.toBe(text)
    for (const changed of [edited, text.replace(/\n"rustup"\t[^\n]*/, "\n\"rustup\"\t{\"winner\":"), text.slice(0, -10)]) {
      expect(Option.isNone(indexIn(changed, digestOf(json)))).toBe(true)
    }
  })

  it("is none for content that is no tool-map bundle, and carries the generation of tools.json", () => {
    expect(renderWhichIndex("{}")).toEqual(Option.none())
    expect(renderWhichIndex("not json")).toEqual(Option.none())
    expect(readGeneration(Option.getOrThrow(renderWhichIndex(json)))).toBe(inventory.generation)
  })

  it("keys names as the bundle's OS compares them (Windows: without PATHEXT extension, any case)", () => {
    const windows = new Inventory({
      ...inventory,
      host: new HostInfo({ ...inventory.host, os: "win32" }),
      path: [new RootReport({ ...inventory.path[0]!, path: "C:\\Git\\cmd" })],
      tools: [toolNamed("Git.EXE", { path: "C:\\Git\\cmd\\Git.EXE", root: "C:\\Git\\cmd", pathIndex: 0 })]
    })
    const text = renderInventoryJson(windows)
    const index = Option.getOrThrow(indexIn(Option.getOrThrow(renderWhichIndex(text)), digestOf(text)))
    const readWindows = Option.getOrThrow(decodeInventoryJson(text))
    expect(Option.map(index.lookup("GIT"), (copies) => copies.winner)).toEqual(Option.some("C:\\Git\\cmd\\Git.EXE"))
    for (const name of ["git", "GIT", "git.exe", "Git.EXE", "gitx"]) {
      expect(Option.map(index.lookup(name), (copies) => ({ name, ...copies }))).toEqual(Option.some(whichTool(readWindows, name)))
    }
  })
})
