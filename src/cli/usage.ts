// What a command line asks for, read against the command tree before @effect/cli parses it: help
// for a command, the version, a completion script, the completion candidates of a partial line,
// or a command to run; and the usage errors that name the word at fault, the command it belongs
// to, the valid choices and the closest of them. @effect/cli gets only lines that pass here.
import { Schema } from "effect"
import { cleanText, neutralize } from "../inventory/domain/untrusted.js"
import { type CommandSpec, type OptionSpec, optionNamed } from "./commandTree.js"

/** The shells `--completions` writes a script for. */
export const SHELLS = ["bash", "zsh", "fish"] as const
export type Shell = (typeof SHELLS)[number]

/** The log levels of `--log-level` (@effect/cli's). */
const LOG_LEVELS = ["all", "trace", "debug", "info", "warning", "error", "fatal", "none"] as const

/** The options every command takes (@effect/cli's built-ins, which it reads anywhere on the line). */
export const GLOBAL_OPTIONS: ReadonlyArray<OptionSpec> = [
  { names: ["--help", "-h"], value: { kind: "flag" }, placeholder: "", description: "Show the help of a command: tool-map query which --help." },
  { names: ["--version"], value: { kind: "flag" }, placeholder: "", description: "Print tool-map's version." },
  {
    names: ["--completions"],
    value: { kind: "choice", choices: SHELLS },
    placeholder: "SHELL",
    description: "Print the completion script for bash, zsh or fish (see the README)."
  },
  {
    names: ["--log-level"],
    value: { kind: "choice", choices: LOG_LEVELS },
    placeholder: "LEVEL",
    description: "Log messages of this level and above on stderr."
  },
  {
    names: ["--wizard"],
    value: { kind: "flag" },
    placeholder: "",
    description: "Build a command line by answering questions (needs a terminal on stdin)."
  }
]

/** The hidden command the completion scripts call: `tool-map __complete SHELL -- WORD...`. */
export const COMPLETE_COMMAND = "__complete"

/** Words a flag may take as its value (@effect/cli reads `--json false` as the flag's value). */
const BOOLEAN_WORDS: ReadonlySet<string> = new Set(["true", "1", "y", "yes", "on", "false", "0", "n", "no", "off"])

/** A command line that cannot be run as typed: exit 2, with what is wrong and what would be right. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  /** The command the word belongs to (`tool-map query`). */
  command: Schema.String,
  /** What is wrong, naming the word at fault. */
  problem: Schema.String,
  /** The valid words in its place, if there is a fixed set. */
  choices: Schema.Array(Schema.String),
  /** The closest valid word, if one is close. */
  suggestion: Schema.NullOr(Schema.String)
}) {
  get message() {
    const suggestion = this.suggestion === null ? "" : ` (did you mean ${this.suggestion}?)`
    const choices = this.choices.length === 0 ? "" : ` Valid: ${this.choices.join(", ")}.`
    // The problem holds the typed words already through the one boundary (`typedWord`), and
    // redacting the whole message again would take its own words for a secret's value
    // ("--since x/passwd: the bundle…"); the rest is neutralized.
    return neutralize(`${this.problem}${suggestion}.${choices} See \`${this.command} --help\`.`)
  }
}

/** A word typed on the command line, as a usage error quotes it: through the one boundary of untrusted text. */
export const typedWord = (word: string): string => cleanText(word)

/** What a command line asks for. */
export type CliRequest =
  | { readonly _tag: "Run"; readonly command: CommandSpec; readonly optionsGiven: ReadonlySet<string>; readonly positionals: number }
  | { readonly _tag: "Help"; readonly command: CommandSpec }
  | { readonly _tag: "Version" }
  | { readonly _tag: "Completions"; readonly shell: Shell }
  | { readonly _tag: "Complete"; readonly shell: Shell; readonly words: ReadonlyArray<string> }
  | { readonly _tag: "Invalid"; readonly error: UsageError }

/** The edit distance of two words (insertions, deletions, substitutions, adjacent swaps). */
const distance = (a: string, b: string): number => {
  const rows: Array<Array<number>> = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/** The choice closest to `word`: a unique prefix match, else the nearest within a third of its length (at least 1), else null. */
export const closestChoice = (word: string, choices: ReadonlyArray<string>): string | null => {
  const bare = (text: string) => text.replace(/^-+/, "").toLowerCase()
  const typed = bare(word)
  if (typed === "") return null
  const prefixed = choices.filter((choice) => bare(choice).startsWith(typed))
  if (prefixed.length === 1) return prefixed[0]!
  let best: string | null = null
  let bestDistance = Math.max(1, Math.floor(typed.length / 3))
  for (const choice of choices) {
    const found = distance(typed, bare(choice))
    if (found < bestDistance || (found === bestDistance && best === null)) {
      best = choice
      bestDistance = found
    }
  }
  return best
}

const commandName = (command: CommandSpec) => command.path.join(" ")

/** A usage error of `command`; the suggestion is the choice (of `suggestFrom`, by default the choices) closest to `typed`. */
const invalid = (
  command: CommandSpec,
  problem: string,
  choices: ReadonlyArray<string>,
  typed: string | null,
  suggestFrom: ReadonlyArray<string> = choices
): CliRequest => ({
  _tag: "Invalid",
  error: new UsageError({
    command: commandName(command),
    problem,
    choices,
    suggestion: typed === null ? null : closestChoice(typed, suggestFrom)
  })
})

const optionLabel = (option: OptionSpec) => option.names[0]!

/** The options a word may name in `command`: its own, then the global ones. */
const findOption = (command: CommandSpec, name: string): OptionSpec | undefined =>
  optionNamed(command, name) ?? GLOBAL_OPTIONS.find((option) => option.names.includes(name))

const looksLikeFlag = (word: string) => word.length > 1 && word.startsWith("-") && !/^-\d/.test(word)

/** Why `value` is no value of `option` (null when it is one). */
const badValue = (command: CommandSpec, option: OptionSpec, value: string): CliRequest | null => {
  switch (option.value.kind) {
    case "choice":
      return option.value.choices.includes(value)
        ? null
        : invalid(command, `${optionLabel(option)} does not take '${typedWord(value)}'`, option.value.choices, value)
    case "integer":
      return /^-?\d+$/.test(value) ? null : invalid(command, `${optionLabel(option)} takes a whole number, not '${typedWord(value)}'`, [], null)
    default:
      return value === "" && option.value.kind === "file" ? invalid(command, `${optionLabel(option)} needs a file name, not an empty word`, [], null) : null
  }
}

/**
 * Reads `args` (the words after `tool-map`) against the command tree: `--help` anywhere shows the
 * help of the deepest command named before it; the first word that fits nowhere is a usage error.
 */
export const interpretArgs = (root: CommandSpec, args: ReadonlyArray<string>): CliRequest => {
  if (args[0] === COMPLETE_COMMAND) {
    const shell = SHELLS.find((name) => name === args[1]) ?? "bash"
    const rest = args.slice(2)
    return { _tag: "Complete", shell, words: rest[0] === "--" ? rest.slice(1) : rest }
  }
  let command = root
  let help = false
  /** The usage errors met, in order: the first is reported. */
  const errors: Array<CliRequest> = []
  const given = new Set<string>()
  let completions: Shell | null = null
  const positionals: Array<string> = []
  let forced = false
  const fail = (request: CliRequest) => void errors.push(request)
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!
    if (forced) {
      positionals.push(word)
      continue
    }
    if (word === "--") {
      forced = true
      continue
    }
    if (word === "--help" || word === "-h") {
      help = true
      continue
    }
    if (looksLikeFlag(word)) {
      const equals = word.startsWith("--") ? word.indexOf("=") : -1
      const name = equals > 0 ? word.slice(0, equals) : word
      const inline = equals > 0 ? word.slice(equals + 1) : undefined
      const option = findOption(command, name)
      if (option === undefined) {
        // Lists the command's own options; suggests from the global ones too.
        const own = command.options.map(optionLabel)
        fail(invalid(command, `unknown option '${typedWord(name)}' for \`${commandName(command)}\``, own, name, [...own, ...GLOBAL_OPTIONS.map(optionLabel)]))
        continue
      }
      given.add(optionLabel(option))
      if (option.value.kind === "flag") {
        if (inline === undefined && BOOLEAN_WORDS.has(args[index + 1] ?? "")) index++
        continue
      }
      const value = inline ?? args[index + 1]
      if (value === undefined || (inline === undefined && looksLikeFlag(value) && findOption(command, value.split("=")[0]!) !== undefined)) {
        const choices = option.value.kind === "choice" ? option.value.choices : []
        fail(invalid(command, `${optionLabel(option)} needs a value (${option.placeholder})${value === undefined ? "" : `, not the option ${typedWord(value)}`}`, choices, null))
        continue
      }
      if (inline === undefined) index++
      const bad = badValue(command, option, value)
      if (bad !== null) fail(bad)
      else if (optionLabel(option) === "--completions") completions = SHELLS.find((shell) => shell === value) ?? null
      continue
    }
    if (command.subcommands.length > 0) {
      const child = command.subcommands.find((sub) => sub.name === word)
      if (child !== undefined && errors.length === 0) command = child
      else if (child === undefined) fail(invalid(command, `unknown command '${typedWord(word)}' for \`${commandName(command)}\``, command.subcommands.map((sub) => sub.name), word))
      continue
    }
    positionals.push(word)
  }
  if (help) return { _tag: "Help", command }
  if (errors.length > 0) return errors[0]!
  if (completions !== null) return { _tag: "Completions", shell: completions }
  if (given.has("--version")) return { _tag: "Version" }
  if (given.has("--wizard")) return { _tag: "Run", command, optionsGiven: given, positionals: positionals.length }
  if (command.subcommands.length > 0) {
    return invalid(command, `\`${commandName(command)}\` needs a command`, command.subcommands.map((sub) => sub.name), null)
  }
  const min = command.args.reduce((sum, arg) => sum + arg.min, 0)
  const max = command.args.reduce((sum, arg) => sum + arg.max, 0)
  if (positionals.length > max) {
    const extra = positionals[max]!
    return invalid(
      command,
      max === 0
        ? `\`${commandName(command)}\` takes no argument, but got '${typedWord(extra)}'`
        : `\`${commandName(command)}\` takes ${command.args.map((arg) => arg.name).join(" ")} only, but got another argument '${typedWord(extra)}'`,
      [],
      null
    )
  }
  if (positionals.length < min) {
    const missing = command.args.find((arg) => arg.min > 0)
    return invalid(command, `\`${commandName(command)}\` needs ${missing?.name ?? "an argument"}`, [], null)
  }
  return { _tag: "Run", command, optionsGiven: given, positionals: positionals.length }
}

/** The default data dir would be relative (an empty or relative HOME): refused rather than written under the working directory. */
export class DataDirInvalid extends Schema.TaggedError<DataDirInvalid>()("DataDirInvalid", {
  reason: Schema.String
}) {
  get message() {
    return cleanText(`Refusing to run: ${this.reason}.`)
  }
}
