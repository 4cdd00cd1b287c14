import { Args, Command, Options } from "@effect/cli"
import { Effect, Option, Schema } from "effect"
import picomatch from "picomatch"
import type { Inventory, Tool } from "../inventory/domain/inventory.js"
import { pathModule } from "../inventory/domain/roots.js"
import { copiesNamed, namedCopies, pathWinner } from "../inventory/domain/toolNames.js"
import { toOsFamily } from "../inventory/domain/machine.js"
import { Bundle } from "../inventory/bundle/Bundle.js"
import { InventoryReader } from "../inventory/query/InventoryReader.js"
import { fromOption, jsonOption } from "./options.js"
import { printJson, printResult, printTable } from "./output.js"

/** `query which NAME` found no tool of that name. */
export class ToolNotFound extends Schema.TaggedError<ToolNotFound>()("ToolNotFound", {
  name: Schema.String
}) {
  get message() {
    return `No tool named ${this.name} is on PATH or in the scanned roots (run \`tool-map scan --force\` if it was just installed).`
  }
}

/** The tools matching the filters of `query tools`, in walk order. */
export const filterTools = (
  inventory: Inventory,
  filters: { readonly category: Option.Option<string>; readonly name: Option.Option<string> }
): ReadonlyArray<Tool> => {
  const matchName = Option.map(filters.name, (glob) => picomatch(glob, { nocase: inventory.host.os === "win32", dot: true }))
  const basename = pathModule(toOsFamily(inventory.host.os)).basename
  return inventory.tools.filter(
    (tool) =>
      Option.match(filters.category, { onNone: () => true, onSome: (category) => tool.category === category }) &&
      Option.match(matchName, {
        onNone: () => true,
        // A file is also called by the names of its aliases (`python3` for `python3.12`).
        onSome: (matches) => matches(tool.name) || tool.alsoAt.some((alias) => matches(basename(alias)))
      })
  )
}

/** Every copy of a name in PATH order (aliases of one file included), which one wins, and known versions. */
export const whichTool = (inventory: Inventory, name: string) => {
  const os = toOsFamily(inventory.host.os)
  const copies = copiesNamed(namedCopies(inventory.tools, inventory.path, os), name, os)
  const versions = new Map(inventory.versions.flatMap((report) => (report.path === null ? [] : [[report.path, report.version] as const])))
  const winner = pathWinner(copies) ?? null
  return {
    name,
    winner: winner?.path ?? null,
    copies: copies.map((copy) => ({
      path: copy.path,
      // An alias's own link, if it is one, is not recorded: only that it is the same file.
      linkTarget: copy.path === copy.tool.path ? copy.tool.linkTarget : null,
      pathIndex: copy.pathIndex,
      root: copy.tool.root,
      sameFileAs: copy.path === copy.tool.path ? null : copy.tool.path,
      version: versions.get(copy.path) ?? versions.get(copy.tool.path) ?? null,
      wins: copy === winner
    }))
  }
}

const category = Options.text("category").pipe(Options.withDescription("Only tools of this category (e.g. runtimes, version-control, other)."), Options.optional)
const nameGlob = Options.text("name").pipe(
  Options.withDescription("Only tools whose name matches this glob (e.g. 'python*')."),
  Options.withSchema(Schema.String.pipe(Schema.minLength(1, { message: () => "--name needs a non-empty glob, e.g. --name 'python*'" }))),
  Options.optional
)

const toolsCommand = Command.make("tools", { category, name: nameGlob, json: jsonOption, from: fromOption }, (flags) =>
  Effect.gen(function* () {
    const inventory = yield* (yield* InventoryReader).load(flags.from)
    const tools = filterTools(inventory, flags)
    yield* printResult(flags.json, tools, (list) =>
      printTable(
        ["name", "category", "path", "shadowed by"],
        list.map((tool) => [tool.name, tool.category, tool.linkTarget === null ? tool.path : `${tool.path} -> ${tool.linkTarget}`, tool.shadowedBy ?? ""]),
        "No tools match."
      )
    )
  })
).pipe(Command.withDescription("List the tools of the cached inventory, optionally by category and name glob."))

const whichCommand = Command.make("which", { name: Args.text({ name: "NAME" }), json: jsonOption, from: fromOption }, (flags) =>
  Effect.gen(function* () {
    const inventory = yield* (yield* InventoryReader).load(flags.from)
    const answer = whichTool(inventory, flags.name)
    if (answer.copies.length === 0) return yield* new ToolNotFound({ name: flags.name })
    yield* printResult(flags.json, answer, (value) =>
      printTable(
        ["", "path", "version", "PATH #", "note"],
        value.copies.map((copy) => [
          copy.wins ? "*" : "",
          copy.linkTarget === null ? copy.path : `${copy.path} -> ${copy.linkTarget}`,
          copy.version ?? "",
          copy.pathIndex === null ? "" : String(copy.pathIndex),
          [copy.wins ? "wins" : copy.pathIndex === null ? `not on PATH (${copy.root})` : `shadowed by ${value.winner}`, copy.sameFileAs === null ? "" : `same file as ${copy.sameFileAs}`].filter((note) => note !== "").join("; ")
        ]),
        "No copies."
      )
    )
  })
).pipe(Command.withDescription("Every copy of NAME in PATH order, the one that wins, and its version when probed."))

const versionsCommand = Command.make("versions", { json: jsonOption, from: fromOption }, (flags) =>
  Effect.gen(function* () {
    const inventory = yield* (yield* InventoryReader).load(flags.from)
    yield* printResult(flags.json, inventory.versions, (versions) =>
      printTable(
        ["tool", "version", "status", "ms", "path"],
        versions.map((report) => [report.name, report.version ?? "", report.status, String(Math.round(report.durationMs)), report.path ?? ""]),
        "No versions were probed (the last scan ran with --no-probes)."
      )
    )
  })
).pipe(Command.withDescription("The versions of the allow-listed tools from the last scan, with each probe's status."))

const staleCommand = Command.make("stale", { json: jsonOption, from: fromOption }, (flags) =>
  Effect.gen(function* () {
    const inventory = yield* (yield* InventoryReader).load(flags.from)
    const reason = yield* (yield* Bundle).changedSince(inventory.watch)
    const answer = { stale: Option.isSome(reason), reason: Option.getOrNull(reason), generation: inventory.generation, generatedAt: inventory.generatedAt }
    if (flags.json) return yield* printJson(answer)
    yield* printResult(false, answer, (value) =>
      printTable(["stale", "reason", "generation", "generated at"], [[value.stale ? "yes" : "no", value.reason ?? "nothing changed", value.generation, value.generatedAt]], "")
    )
  })
).pipe(Command.withDescription("Whether the cached bundle is out of date, and the first change found."))

/** The `query` subcommands of issue 2. */
export const inventoryQueryCommands = [toolsCommand, whichCommand, versionsCommand, staleCommand] as const
