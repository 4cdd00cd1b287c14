// The command tree of tool-map as plain data, read once from the @effect/cli descriptors the
// commands are made of (their names, options, arguments and descriptions stay where each command
// is defined). The help screens, the usage errors and the shell completions are all made from it,
// so they cannot disagree with the parser. The descriptors' shapes are those of @effect/cli 0.77
// (pinned); a shape this reader does not know is a defect, reported by name.

/** What an option takes after its name. */
export type OptionValue =
  | { readonly kind: "flag" }
  | { readonly kind: "choice"; readonly choices: ReadonlyArray<string> }
  | { readonly kind: "file" }
  | { readonly kind: "integer" }
  | { readonly kind: "text" }

/** One option of a command, as the user types it. */
export interface OptionSpec {
  /** `--quiet`, then its aliases (`-q`). */
  readonly names: ReadonlyArray<string>
  readonly value: OptionValue
  /** The word shown for its value in the help (`GLOB`, `FILE`); empty for a flag. */
  readonly placeholder: string
  readonly description: string
}

/** One positional argument (or a run of them). */
export interface ArgSpec {
  readonly name: string
  readonly description: string
  readonly min: number
  /** `Infinity` for a variadic argument. */
  readonly max: number
}

/** A command: its words from the root (`["tool-map", "query", "which"]`), options, arguments and subcommands. */
export interface CommandSpec {
  readonly name: string
  readonly path: ReadonlyArray<string>
  readonly description: string
  readonly options: ReadonlyArray<OptionSpec>
  readonly args: ReadonlyArray<ArgSpec>
  readonly subcommands: ReadonlyArray<CommandSpec>
}

/** The words shown for option values where the option's name alone says too little. */
const PLACEHOLDERS: Readonly<Record<string, string>> = {
  from: "PATH.md",
  name: "GLOB",
  http: "PORT",
  k: "N",
  agent: "ID",
  query: "WORDS",
  keyword: "TEXT",
  "print-config": "HOST",
  "session-idle": "MINUTES",
  "max-sessions": "N",
  since: "GENERATION"
}

type Node = { readonly _tag: string } & Readonly<Record<string, unknown>>

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && "_tag" in value && typeof value._tag === "string"

const nodeOf = (value: unknown, what: string): Node => {
  if (!isNode(value)) throw new Error(`commandTree: ${what} is not an @effect/cli descriptor`)
  return value
}

const unknownShape = (what: string, node: Node): never => {
  throw new Error(`commandTree: unknown ${what} descriptor ${node._tag} (is @effect/cli still 0.77?)`)
}

/** The plain text of a HelpDoc or Span (paragraphs joined by a space). */
const textOf = (value: unknown): string => {
  if (!isNode(value)) return ""
  switch (value._tag) {
    case "Empty":
      return ""
    case "Text":
    case "Code":
    case "URI":
      return typeof value["value"] === "string" ? value["value"] : ""
    case "Sequence":
      return [textOf(value["left"]), textOf(value["right"])].filter((part) => part !== "").join(" ")
    default:
      return textOf(value["value"])
  }
}

const stringOr = (value: unknown, fallback: string): string => (typeof value === "string" ? value : fallback)

const valueOf = (primitive: Node): OptionValue => {
  switch (primitive._tag) {
    case "Bool":
      return { kind: "flag" }
    case "Choice": {
      const alternatives = Array.isArray(primitive["alternatives"]) ? primitive["alternatives"] : []
      return { kind: "choice", choices: alternatives.map((pair: unknown) => (Array.isArray(pair) ? stringOr(pair[0], "") : "")) }
    }
    case "Path":
      return { kind: "file" }
    case "Integer":
      return { kind: "integer" }
    default:
      return { kind: "text" }
  }
}

/** The longest list of choices shown in place of a placeholder (`--by item|plugin|source|host`). */
const CHOICES_SHOWN_MAX = 24

/** The word shown for an option's value: its few choices, else a word that says what it is. */
const placeholderOf = (name: string, value: OptionValue): string => {
  if (value.kind === "flag") return ""
  if (value.kind === "choice" && value.choices.join("|").length <= CHOICES_SHOWN_MAX) return value.choices.join("|")
  return PLACEHOLDERS[name] ?? (value.kind === "file" ? "FILE" : name.toUpperCase())
}

const optionsOf = (value: unknown): ReadonlyArray<OptionSpec> => {
  const node = nodeOf(value, "an option")
  switch (node._tag) {
    case "Empty":
      return []
    case "Single": {
      const name = stringOr(node["name"], "")
      const aliases = Array.isArray(node["aliases"]) ? node["aliases"].map((alias: unknown) => `-${stringOr(alias, "")}`) : []
      const optionValue = valueOf(nodeOf(node["primitiveType"], `the value of --${name}`))
      return [{
        names: [name.length === 1 ? `-${name}` : `--${name}`, ...aliases],
        value: optionValue,
        placeholder: placeholderOf(name, optionValue),
        description: textOf(node["description"])
      }]
    }
    case "Both":
      return [...optionsOf(node["left"]), ...optionsOf(node["right"])]
    case "Map":
    case "WithDefault":
    case "WithFallback":
      return optionsOf(node["options"])
    default:
      return unknownShape("option", node)
  }
}

const argsOf = (value: unknown, min = 1, max = 1): ReadonlyArray<ArgSpec> => {
  const node = nodeOf(value, "an argument")
  switch (node._tag) {
    case "Empty":
      return []
    case "Single": {
      const pseudo = nodeOf(node["pseudoName"], "an argument's name")
      const name = pseudo._tag === "Some" ? stringOr(pseudo["value"], "") : stringOr(node["name"], "ARG")
      return [{ name, description: textOf(node["description"]), min, max }]
    }
    case "Both":
      return [...argsOf(node["left"], min, max), ...argsOf(node["right"], min, max)]
    case "Map":
    case "WithFallbackConfig":
      return argsOf(node["args"], min, max)
    case "WithDefault":
      return argsOf(node["args"], 0, max)
    case "Variadic": {
      const bound = (option: unknown, fallback: number) => {
        const found = nodeOf(option, "a bound")
        return found._tag === "Some" && typeof found["value"] === "number" ? found["value"] : fallback
      }
      return argsOf(node["args"], bound(node["min"], 0), bound(node["max"], Infinity))
    }
    default:
      return unknownShape("argument", node)
  }
}

const specOf = (value: unknown, parentPath: ReadonlyArray<string>): CommandSpec => {
  const node = nodeOf(value, "a command")
  switch (node._tag) {
    case "Standard": {
      const name = stringOr(node["name"], "")
      return {
        name,
        path: [...parentPath, name],
        description: textOf(node["description"]),
        options: optionsOf(node["options"]),
        args: argsOf(node["args"]),
        subcommands: []
      }
    }
    case "Map":
      return specOf(node["command"], parentPath)
    case "Subcommands": {
      const parent = specOf(node["parent"], parentPath)
      const children = Array.isArray(node["children"]) ? node["children"] : []
      return { ...parent, subcommands: children.map((child: unknown) => specOf(child, parent.path)) }
    }
    default:
      return unknownShape("command", node)
  }
}

/** The command tree of a command made with @effect/cli's `Command.make` (its `descriptor`). */
export const commandTreeOf = (command: { readonly descriptor: unknown }): CommandSpec => specOf(command.descriptor, [])

/** The command at `path` below `root` (its first word is the root's own name), if there is one. */
export const commandAt = (root: CommandSpec, path: ReadonlyArray<string>): CommandSpec | undefined => {
  let node: CommandSpec | undefined = root
  for (const word of path.slice(1)) node = node?.subcommands.find((child) => child.name === word)
  return node
}

/** Every command below `root` (itself included), depth first in definition order. */
export const allCommands = (root: CommandSpec): ReadonlyArray<CommandSpec> => [root, ...root.subcommands.flatMap(allCommands)]

/** The option of `command` named `word` (`--json`, `-q`), if any. */
export const optionNamed = (command: CommandSpec, word: string): OptionSpec | undefined =>
  command.options.find((option) => option.names.includes(word))
