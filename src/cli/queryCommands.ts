import { Args, Command, Options } from "@effect/cli"
import { Effect, Option, Schema } from "effect"
import { Bundle } from "../inventory/bundle/Bundle.js"
import { InventoryReader, pendingRepairOf } from "../inventory/query/InventoryReader.js"
import { MAX_NAME_GLOB_LENGTH } from "../inventory/query/nameGlob.js"
import { listTools } from "../inventory/query/toolQueries.js"
import { printAnswer } from "./answerFreshness.js"
import { answerWhich } from "./everydayHandlers.js"
import { answersFromBundle, freshOption } from "./freshQueries.js"
import { ledgerQueryCommands } from "./ledgerCommands.js"
import { fromOption, jsonOption } from "./options.js"
import { printJson, printResult, printTable } from "./output.js"

const category = Options.text("category").pipe(Options.withDescription("Only tools of this category (e.g. runtimes, version-control, other)."), Options.optional)
const nameGlob = Options.text("name").pipe(
  Options.withDescription(
    "Only tools whose name matches this glob (every name the shell can call is a tool of its own, links and hard links included), e.g. 'python*': * any run of characters, ? one, [a-z] or [!a-z] a class, {a,b} alternatives, \\ makes the next character literal."
  ),
  Options.withSchema(Schema.String.pipe(
    Schema.minLength(1, { message: () => "--name needs a non-empty glob, e.g. --name 'python*'" }),
    Schema.filter((glob) => Array.from(glob).length <= MAX_NAME_GLOB_LENGTH, {
      message: () => `--name takes a glob of at most ${MAX_NAME_GLOB_LENGTH} characters`
    })
  )),
  Options.optional
)

const toolsCommand = Command.make("tools", { category, name: nameGlob, json: jsonOption, from: fromOption, fresh: freshOption }, (flags) =>
  Effect.gen(function* () {
    const inventory = yield* (yield* InventoryReader).load(flags.from)
    const listed = yield* listTools(inventory, flags)
    yield* printAnswer(flags.json, listed, (list) =>
      printTable(
        ["name", "category", "path", "shadowed by"],
        list.map((tool) => [
          "matchedName" in tool && tool.matchedName !== tool.name ? `${tool.name} (matched as ${tool.matchedName})` : tool.name,
          tool.category,
          tool.linkTarget === null ? tool.path : `${tool.path} -> ${tool.linkTarget}`,
          tool.shadowedBy ?? ""
        ]),
        "No tools match."
      )
    )
  })
).pipe(Command.withDescription("List the tools of the cached inventory, optionally by category and name glob."), answersFromBundle)

const whichCommand = Command.make(
  "which",
  {
    name: Args.text({ name: "NAME" }).pipe(Args.withDescription("A command name as the shell calls it (git, python3).")),
    json: jsonOption,
    from: fromOption,
    fresh: freshOption
  },
  answerWhich
).pipe(Command.withDescription("Every copy of NAME in PATH order, the one that wins, and its version when probed."), answersFromBundle)

const versionsCommand = Command.make("versions", { json: jsonOption, from: fromOption, fresh: freshOption }, (flags) =>
  Effect.gen(function* () {
    const inventory = yield* (yield* InventoryReader).load(flags.from)
    yield* printAnswer(flags.json, inventory.versions, (versions) =>
      printTable(
        ["tool", "version", "status", "ms", "path"],
        versions.map((report) => [report.name, report.version ?? "", report.status, String(Math.round(report.durationMs)), report.path ?? ""]),
        "No versions were probed (the last scan ran with --no-probes)."
      )
    )
  })
).pipe(Command.withDescription("The versions of the allow-listed tools from the last scan, with each probe's status."), answersFromBundle)

const staleCommand = Command.make("stale", { json: jsonOption, from: fromOption }, (flags) =>
  Effect.gen(function* () {
    const inventory = yield* (yield* InventoryReader).load(flags.from)
    const reason = yield* (yield* Bundle).changedSince(inventory.watch)
    const pending = yield* pendingRepairOf(flags.from)
    const answer = {
      stale: Option.isSome(reason),
      reason: Option.getOrNull(reason),
      generation: inventory.generation,
      generatedAt: inventory.generatedAt,
      // An interrupted write this reader could not repair (also said on stderr).
      repairPending: Option.getOrNull(Option.map(pending, (repair) => repair.message))
    }
    if (flags.json) return yield* printJson(answer)
    yield* printResult(false, answer, (value) =>
      printTable(["stale", "reason", "generation", "generated at"], [[value.stale ? "yes" : "no", value.reason ?? "nothing changed", value.generation, value.generatedAt]], "")
    )
  })
).pipe(Command.withDescription("Whether the cached bundle is out of date, and the first change found."))

/** The `query` subcommands of issue 2. */
export const inventoryQueryCommands = [toolsCommand, whichCommand, versionsCommand, staleCommand, ...ledgerQueryCommands] as const
