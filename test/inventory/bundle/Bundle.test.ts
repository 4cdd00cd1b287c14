import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import { execFileSync } from "node:child_process"
import * as NodePath from "node:path"
import { Bundle, BUNDLE_JSON_MAX_BYTES } from "../../../src/inventory/bundle/Bundle.js"
import { BundleReadError, RedirectPathInvalid } from "../../../src/inventory/bundle/errors.js"
import type { BundlePaths } from "../../../src/inventory/bundle/location.js"
import { Inventory, type WatchSet } from "../../../src/inventory/domain/inventory.js"
import { renderInventoryJson } from "../../../src/inventory/render/inventoryJson.js"
import { renderSummary, renderToolsMarkdown } from "../../../src/inventory/render/inventoryMarkdown.js"
import type { MachineEnvironmentShape } from "../../../src/inventory/domain/machine.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { inventoryOf, toolNamed } from "../../support/inventory.js"

/** Runs `f` with a Bundle over the real file system and an environment of `overrides` (no variables unless given). */
const withBundle = <A, E>(overrides: Partial<MachineEnvironmentShape>, f: (bundle: Bundle["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(Bundle, f).pipe(
    Effect.provide(Bundle.layer.pipe(Layer.provide(MachineEnvironment.layerTest({ os: "linux", homedir: "/home/u", cwd: "/work/here", ...overrides })))),
    Effect.provide(NodeContext.layer)
  )

const locate = (overrides: Partial<MachineEnvironmentShape>, target: Option.Option<string>) =>
  withBundle(overrides, (bundle) => bundle.locate(target))

const pathsIn = (dir: string, stem = "tools"): BundlePaths => ({
  dir,
  json: NodePath.join(dir, `${stem}.json`),
  markdown: NodePath.join(dir, `${stem}.md`),
  summary: NodePath.join(dir, `${stem}.summary.md`),
  stem
})

const tempDir = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "bundle-" }))

const GENERATION = "20260101T000000Z-00000000"

/** Writes the three files of a bundle of `inventory` (its watch set `watch` when given) into `paths`. */
const writeBundle = (paths: BundlePaths, watch?: WatchSet) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const base = inventoryOf([toolNamed("git"), toolNamed("node")])
    const inventory = watch === undefined ? base : new Inventory({ ...base, watch })
    yield* fs.writeFileString(paths.json, renderInventoryJson(inventory))
    yield* fs.writeFileString(paths.markdown, renderToolsMarkdown(inventory))
    yield* fs.writeFileString(paths.summary, renderSummary(inventory, { markdown: paths.markdown, json: paths.json, refreshCommand: "tool-map scan --if-stale" }))
    return inventory
  })

describe("Bundle.locate", () => {
  it.effect("puts the bundle in $PLUGIN_DATA, else an absolute $XDG_DATA_HOME/tool-map, else ~/.local/share/tool-map", () =>
    Effect.gen(function*() {
      const plugin = yield* locate({ env: { PLUGIN_DATA: "/data/plugin", XDG_DATA_HOME: "/xdg" } }, Option.none())
      expect(plugin).toEqual(pathsIn("/data/plugin"))
      const xdg = yield* locate({ env: { XDG_DATA_HOME: "/xdg" } }, Option.none())
      expect(xdg).toEqual(pathsIn("/xdg/tool-map"))
      // A relative XDG_DATA_HOME is ignored (the XDG spec), an empty PLUGIN_DATA counts as unset.
      const relativeXdg = yield* locate({ env: { PLUGIN_DATA: "", XDG_DATA_HOME: "xdg" } }, Option.none())
      expect(relativeXdg).toEqual(pathsIn("/home/u/.local/share/tool-map"))
    }))

  it.effect("resolves a relative $PLUGIN_DATA and a redirect against the injected working directory, not the process's", () =>
    Effect.gen(function*() {
      expect(process.cwd()).not.toBe("/work/here")
      expect(yield* locate({ env: { PLUGIN_DATA: "data" } }, Option.none())).toEqual(pathsIn("/work/here/data"))
      expect(yield* locate({}, Option.some("out/inv.md"))).toEqual(pathsIn("/work/here/out", "inv"))
      expect(yield* locate({ cwd: "/elsewhere" }, Option.some("../inv.md"))).toEqual(pathsIn("/", "inv"))
      expect(yield* locate({}, Option.some("/abs/x.y.md"))).toEqual(pathsIn("/abs", "x.y"))
    }))

  it.effect("refuses a redirect that names no markdown file, with the path and the reason", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(locate({}, Option.some("inv.txt")))
      expect(exit).toEqual(Exit.fail(new RedirectPathInvalid({
        path: "inv.txt",
        reason: "the output path inv.txt does not end in .md; the bundle needs a markdown path such as inv.md, from which inv.json and inv.summary.md are derived"
      })))
    }))
})

layer(NodeContext.layer)("Bundle.read", (it) => {
  it.scoped("is none when there is no tools.json", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      expect(yield* withBundle({}, (bundle) => bundle.read(pathsIn(dir)))).toEqual(Option.none())
    }))

  it.scoped("decodes the inventory a scan wrote", () =>
    Effect.gen(function*() {
      const paths = pathsIn(yield* tempDir)
      const written = yield* writeBundle(paths)
      const read = yield* withBundle({}, (bundle) => bundle.read(paths))
      expect(Option.map(read, (inventory) => inventory instanceof Inventory)).toEqual(Option.some(true))
      expect(read).toEqual(Option.some(written))
    }))

  it.scoped("refuses a corrupt or foreign tools.json with the rebuild advice", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const paths = pathsIn(yield* tempDir)
      const invalid = new BundleReadError({
        path: paths.json,
        reason: "it is not a valid tool-map bundle (corrupt or from an incompatible version); run `tool-map scan --force` to rebuild it"
      })
      for (const content of ["{ not json", "null", JSON.stringify({ schemaVersion: 99, generation: GENERATION })]) {
        yield* fs.writeFileString(paths.json, content)
        expect(yield* Effect.exit(withBundle({}, (bundle) => bundle.read(paths)))).toEqual(Exit.fail(invalid))
      }
    }))

  it.scoped("refuses anything but a regular file instead of blocking on it", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const fifo = pathsIn(yield* tempDir)
      execFileSync("mkfifo", [fifo.json])
      expect(yield* Effect.exit(withBundle({}, (bundle) => bundle.read(fifo)))).toEqual(
        Exit.fail(new BundleReadError({ path: fifo.json, reason: "it is not a regular file (fifo)" }))
      )
      const directory = pathsIn(yield* tempDir)
      yield* fs.makeDirectory(directory.json)
      expect(yield* Effect.exit(withBundle({}, (bundle) => bundle.read(directory)))).toEqual(
        Exit.fail(new BundleReadError({ path: directory.json, reason: "it is not a regular file (directory)" }))
      )
      // Over the cap (sparse: nothing is written, and nothing is read).
      const huge = pathsIn(yield* tempDir)
      execFileSync("truncate", ["-s", String(BUNDLE_JSON_MAX_BYTES + 1), huge.json])
      expect(yield* Effect.exit(withBundle({}, (bundle) => bundle.read(huge)))).toEqual(
        Exit.fail(new BundleReadError({ path: huge.json, reason: `it is ${BUNDLE_JSON_MAX_BYTES + 1} bytes, over the ${BUNDLE_JSON_MAX_BYTES}-byte cap` }))
      )
    }))
})

layer(NodeContext.layer)("Bundle.staleness and Bundle.generation", (it) => {
  /** A bundle in a temp dir watching one file `watched` in it, recorded under `PATH=/bin`. */
  const freshBundle = Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* tempDir
    const paths = pathsIn(dir)
    const watched = NodePath.join(dir, "watched")
    yield* fs.writeFileString(watched, "one")
    const watch = yield* withBundle({ env: { PATH: "/bin" } }, (bundle) => bundle.snapshot([watched, watched, NodePath.join(dir, "absent")]))
    yield* writeBundle(paths, watch)
    return { paths, watched, watch }
  })
  const check = (paths: BundlePaths, env: Record<string, string> = { PATH: "/bin" }) =>
    withBundle({ env }, (bundle) => Effect.all({ staleness: bundle.staleness(paths), generation: bundle.generation(paths) }))

  it.scoped("records each watched input once, and a fresh bundle is up to date with its generation", () =>
    Effect.gen(function*() {
      const { paths, watch, watched } = yield* freshBundle
      expect(watch.inputs.map((input) => [input.path, input.state.split(":")[0]])).toEqual([
        [watched, "File"],
        [NodePath.join(paths.dir, "absent"), "missing"]
      ])
      expect(yield* check(paths)).toEqual({
        staleness: { reason: Option.none(), generation: Option.some(GENERATION) },
        generation: Option.some(GENERATION)
      })
    }))

  it.scoped("says why: no bundle, a markdown file missing or of another generation", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      expect(yield* check(pathsIn(yield* tempDir))).toEqual({
        staleness: { reason: Option.some("no readable bundle yet"), generation: Option.none() },
        generation: Option.none()
      })
      const { paths } = yield* freshBundle
      const summary = yield* fs.readFileString(paths.summary)
      yield* fs.writeFileString(paths.summary, summary.replace(GENERATION, "20260202T000000Z-11111111"))
      expect(yield* check(paths)).toEqual({
        staleness: { reason: Option.some(`${paths.summary} is not of the generation ${paths.json} records`), generation: Option.some(GENERATION) },
        generation: Option.none()
      })
      yield* fs.remove(paths.markdown)
      expect(yield* check(paths)).toEqual({
        staleness: { reason: Option.some(`${paths.markdown} is missing`), generation: Option.some(GENERATION) },
        generation: Option.none()
      })
    }))

  it.scoped("says why: PATH changed, an input changed, appeared or disappeared", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const { paths, watch, watched } = yield* freshBundle
      const reason = (env?: Record<string, string>) => Effect.map(check(paths, env), (found) => found.staleness.reason)
      expect(yield* reason({ PATH: "/usr/bin" })).toEqual(Option.some("PATH changed"))
      expect(yield* reason({ PATH: "/bin", TOOL_MAP_ROOTS: "/opt" })).toEqual(Option.some("TOOL_MAP_ROOTS changed"))
      const absent = NodePath.join(paths.dir, "absent")
      yield* fs.writeFileString(absent, "")
      expect(yield* reason()).toEqual(Option.some(`${absent} appeared`))
      // Inputs are compared in the recorded order: the first change is the reason.
      yield* fs.writeFileString(watched, "two, longer")
      expect(yield* reason()).toEqual(Option.some(`${watched} changed`))
      // changedSince answers the same from a watch set in hand (an inventory loaded for a query).
      expect(yield* withBundle({ env: { PATH: "/bin" } }, (bundle) => bundle.changedSince(watch))).toEqual(Option.some(`${watched} changed`))
      yield* fs.remove(watched)
      expect(yield* reason()).toEqual(Option.some(`${watched} disappeared`))
    }))
})
