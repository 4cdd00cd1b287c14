import { Args, Command, Options } from "@effect/cli"
import { Effect, Schema } from "effect"
import { ScanProgram } from "../inventory/ScanProgram.js"
import { jsonOption } from "./options.js"
import { printScanOutcome } from "./everydayHandlers.js"

/** `--force` and `--if-stale` were both given. */
export class ConflictingFlags extends Schema.TaggedError<ConflictingFlags>()("ConflictingFlags", {
  flags: Schema.Array(Schema.String)
}) {
  get message() {
    return `The flags ${this.flags.join(" and ")} contradict each other: give one of them.`
  }
}

/** An unknown flag that the parser took for the output path. */
export class UnknownFlag extends Schema.TaggedError<UnknownFlag>()("UnknownFlag", {
  flag: Schema.String
}) {
  get message() {
    return `Unknown flag ${this.flag} (taken as the output path, which must end in .md). See \`tool-map scan --help\` for the flags.`
  }
}

const target = Args.text({ name: "PATH.md" }).pipe(
  Args.withDescription("Write the bundle as PATH.md, PATH.json and PATH.summary.md instead of the default data dir."),
  Args.optional
)
const ifStale = Options.boolean("if-stale").pipe(
  Options.withDescription("Do nothing (and say so) when no watched input changed since the last scan.")
)
const force = Options.boolean("force").pipe(Options.withDescription("Rescan unconditionally."))
const noProbes = Options.boolean("no-probes").pipe(Options.withDescription("Skip the --version probes of the allow-listed tools."))
const quiet = Options.boolean("quiet").pipe(Options.withAlias("q"), Options.withDescription("Print nothing on success."))

/** `tool-map scan [PATH.md] [--if-stale|--force] [--no-probes] [--json] [--quiet]`. */
export const scanCommand = Command.make(
  "scan",
  { target, ifStale, force, noProbes, json: jsonOption, quiet },
  (flags) =>
    Effect.gen(function* () {
      if (flags.ifStale && flags.force) return yield* new ConflictingFlags({ flags: ["--if-stale", "--force"] })
      const scanner = yield* ScanProgram
      const outcome = yield* scanner.run({ target: flags.target, ifStale: flags.ifStale, probes: !flags.noProbes, progress: !flags.json && !flags.quiet }).pipe(
        // The parser takes an unknown flag for the positional PATH.md: say what it most likely is.
        Effect.catchTag("RedirectPathInvalid", (invalid) =>
          Effect.fail(/^--?[A-Za-z]/.test(invalid.path) ? new UnknownFlag({ flag: invalid.path }) : invalid))
      )
      yield* printScanOutcome(outcome, flags)
    })
).pipe(
  Command.withDescription(
    "Scan PATH, the well-known tool roots and the agent hosts' configuration, probe the versions of allow-listed tools, and write tools.json, tools.md and tools.summary.md atomically to $PLUGIN_DATA, else $XDG_DATA_HOME/tool-map, else ~/.local/share/tool-map."
  )
)
