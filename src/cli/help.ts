// The help screens of tool-map, made from the command tree (commandTree.ts): the full command
// path, what the command does, its arguments and options, an example or two, wrapped to the
// terminal's width (80 columns when stdout is no terminal). Only the top-level screen lists the
// global options and the exit codes; the others point to it in one line.
import { displayWidth, padEndDisplay, wrapDisplay } from "../inventory/domain/displayWidth.js"
import { type ArgSpec, type CommandSpec, type OptionSpec } from "./commandTree.js"
import { EXIT_CODE_MEANINGS } from "./exitCodes.js"
import { GLOBAL_OPTIONS } from "./usage.js"

/** How a help screen is drawn. */
export interface HelpStyle {
  /** Columns to wrap at. */
  readonly width: number
  /** Bold headings (ANSI), only on a terminal that wants colour. */
  readonly color: boolean
}

/** The style for stdout: its width when it is a terminal (at least 40), else 80; colour only on a terminal, without NO_COLOR, with a TERM other than dumb. */
export const helpStyleFor = (
  terminal: { readonly stdoutIsTty: boolean; readonly columns: number | undefined },
  env: Readonly<Record<string, string | undefined>>
): HelpStyle => ({
  width: terminal.stdoutIsTty && terminal.columns !== undefined && terminal.columns > 0 ? Math.max(40, terminal.columns) : 80,
  color: terminal.stdoutIsTty && (env["NO_COLOR"] ?? "") === "" && env["TERM"] !== "dumb"
})

/** Examples by command path (without `tool-map`); a command without any gets one made from its usage. */
const EXAMPLES: Readonly<Record<string, ReadonlyArray<string>>> = {
  "": ["tool-map scan", "tool-map query which git", "tool-map query agents --tool Bash --json"],
  scan: ["tool-map scan --if-stale", "tool-map scan out/inventory.md --no-probes"],
  query: ["tool-map query which node", "tool-map query skills --keyword review"],
  "query tools": ["tool-map query tools --category version-control", "tool-map query tools --name 'python*' --json"],
  "query which": ["tool-map query which git", "tool-map query which python3 --json"],
  "query versions": ["tool-map query versions", "tool-map query versions --from out/inventory.md"],
  "query stale": ["tool-map query stale --json"],
  "query context": ["tool-map query context --by plugin", "tool-map query context --host claude-code --json"],
  "query changes": ["tool-map query changes", "tool-map query changes --since 1d", "tool-map scan && tool-map query changes --json"],
  "query agents": ["tool-map query agents --read-only", "tool-map query agents --host claude-code --tool Bash"],
  "query skills": ["tool-map query skills --keyword review", "tool-map query skills --host codex --json"],
  "query commands": ["tool-map query commands --host claude-code"],
  "query mcp": ["tool-map query mcp", "tool-map query mcp --scope project --all"],
  "query plugins": ["tool-map query plugins --all"],
  export: ["tool-map export claude-v1 > tools-inventory.json"],
  "export claude-v1": ["tool-map export claude-v1 > tools-inventory.json"],
  catalog: ["tool-map catalog ls / --schemas tools.json", "tool-map catalog load github"],
  "catalog ls": ["tool-map catalog ls / --schemas tools.json", "tool-map catalog ls --host claude-code", "tool-map catalog ls --query 'list issues'"],
  "catalog find": ["tool-map catalog find 'open a pull request'", "tool-map catalog find 'read a file' -k 3 --json"],
  "catalog load": ["tool-map catalog load github", "tool-map catalog load mcp__github__create_issue --agent reviewer"],
  "catalog unload": ["tool-map catalog unload github", "tool-map catalog unload all"],
  "catalog diff": ["tool-map catalog diff --schemas tools.json"],
  "catalog snapshot": ["tool-map catalog snapshot --host claude-code", "tool-map catalog snapshot --host codex --json"],
  "catalog approve": ["tool-map catalog approve", "tool-map catalog approve K7QX-M2PD"],
  mcp: ["tool-map mcp --print-config claude-code", "tool-map mcp --gateway --host cursor"],
  gateway: ["tool-map gateway setup codex --dry-run", "tool-map gateway status"],
  "gateway setup": ["tool-map gateway setup codex --dry-run", "tool-map gateway setup claude-code --scope local"],
  "gateway restore": ["tool-map gateway restore codex"],
  "gateway status": ["tool-map gateway status", "tool-map gateway status gemini --json"]
}

/** One line on each command for the command lists (a command without one shows its description's first sentence). */
const SUMMARIES: Readonly<Record<string, string>> = {
  scan: "Scan the machine and the agent hosts into the bundle.",
  query: "Answer questions from the cached bundle.",
  "query tools": "The executables found, by category or name glob.",
  "query which": "Every copy of NAME on PATH, the one that wins, its version.",
  "query versions": "The versions of the allow-listed tools from the last scan.",
  "query stale": "Whether the cached bundle is out of date, and why.",
  "query context": "What the agent hosts put into every session, largest first.",
  "query changes": "What changed since an earlier scan (--since 1d, 3, 2026-12-01).",
  "query agents": "The subagents the agent hosts load.",
  "query skills": "The skills the agent hosts load.",
  "query commands": "The slash commands and custom prompts the agent hosts load.",
  "query mcp": "The MCP servers the agent hosts configure, and where.",
  "query plugins": "The installed plugins and extensions.",
  export: "Print the cached inventory in another tool's format.",
  "export claude-v1": "The Claude Code inventory in the seed's v1 JSON schema.",
  catalog: "Browse, search, load and unload the tool catalog.",
  "catalog ls": "Browse the catalog tree, or search it with --query.",
  "catalog find": "Rank the catalog's tools for a task in plain words.",
  "catalog load": "Make tools callable for an agent.",
  "catalog unload": "Hide an agent's loaded tools again.",
  "catalog diff": "What changed in the tool definitions since the last build.",
  "catalog snapshot": "List a host's MCP servers once, keeping their tool snapshots.",
  "catalog approve": "Approve, as a person, a high-risk tool an agent asked for.",
  mcp: "Run as an MCP server (stdio or HTTP), or as a gateway.",
  gateway: "Put an agent host's MCP servers behind the gateway, or take them back.",
  "gateway setup": "Move a host's MCP servers behind the gateway in one step.",
  "gateway restore": "Give a host's config back as it was before setup.",
  "gateway status": "What each host has behind the gateway, and what it loads directly."
}

const SENTENCE_END = /(?<=[.!?])\s+(?=[A-Z`$])/

/** The one-line summary of a command, for the command lists and the completion descriptions. */
export const summaryOf = (command: CommandSpec): string =>
  SUMMARIES[command.path.slice(1).join(" ")] ?? command.description.split(SENTENCE_END)[0] ?? command.description

/** `text` wrapped to `width`, each line after `indent`; the first line after `first` instead when given. */
const indented = (text: string, width: number, indent: string, first: string = indent): ReadonlyArray<string> =>
  wrapDisplay(text, Math.max(20, width - displayWidth(indent))).map((line, index) => `${index === 0 ? first : indent}${line}`)

/** The widest label a description stands beside. */
const LABEL_MAX = 20

/** Rows of two columns: the label, then its description wrapped beside it (below it when the label is wide). */
const definitionList = (rows: ReadonlyArray<readonly [string, string]>, width: number): ReadonlyArray<string> => {
  // A label wider than LABEL_MAX stands on its own line instead of pushing every description right.
  const labelWidth = Math.max(0, ...rows.map(([label]) => displayWidth(label)).filter((width) => width <= LABEL_MAX))
  const column = 2 + labelWidth + 2
  const pad = " ".repeat(column)
  return rows.flatMap(([label, text]) => {
    if (text === "") return [`  ${label}`]
    if (displayWidth(label) > labelWidth) return [`  ${label}`, ...indented(text, width, pad)]
    return indented(text, width, pad, `  ${padEndDisplay(label, labelWidth)}  `)
  })
}

const optionLabel = (option: OptionSpec): string => {
  const [long, ...aliases] = option.names
  const names = [...aliases, long].join(", ")
  return option.placeholder === "" ? names : `${names} ${option.placeholder}`
}

const optionText = (option: OptionSpec): string =>
  option.value.kind === "choice" && !option.placeholder.includes("|") && !option.value.choices.every((choice) => option.description.includes(choice))
    ? `${option.description} One of: ${option.value.choices.join(", ")}.`
    : option.description

const argUsage = (arg: ArgSpec): string => {
  const name = arg.max === Infinity ? `${arg.name}...` : arg.name
  return arg.min === 0 ? `[${name}]` : name
}

/** The usage line of a command: its path, `COMMAND` for a group, `[options]`, its arguments. */
const usageLine = (command: CommandSpec): string =>
  [
    ...command.path,
    ...(command.subcommands.length > 0 ? ["COMMAND"] : []),
    ...(command.options.length > 0 ? ["[options]"] : []),
    ...command.args.map(argUsage)
  ].join(" ")

/** The examples of a command: its own, or its usage with the required arguments in capitals. */
const examplesOf = (command: CommandSpec): ReadonlyArray<string> => {
  const own = EXAMPLES[command.path.slice(1).join(" ")]
  if (own !== undefined) return own
  const required = command.args.filter((arg) => arg.min > 0).map((arg) => arg.name)
  const json = command.options.some((option) => option.names.includes("--json"))
  const base = [...command.path, ...required].join(" ")
  return json ? [base, `${base} --json`] : [base]
}

/** The leaf commands below `command`, each with its words after the root's name. */
const leaves = (command: CommandSpec): ReadonlyArray<CommandSpec> =>
  command.subcommands.length === 0 ? [command] : command.subcommands.flatMap(leaves)

/** The help screen of `command` (a node of the tree whose root is `tool-map`), without a trailing newline. */
export const renderHelp = (command: CommandSpec, style: HelpStyle, version: string): string => {
  const heading = (text: string) => (style.color ? `\x1b[1m${text}\x1b[22m` : text)
  const isRoot = command.path.length === 1
  const sections: Array<ReadonlyArray<string>> = []
  sections.push(indented(usageLine(command), style.width, "    ", `${heading("Usage:")} `))
  sections.push(wrapDisplay(isRoot ? `tool-map ${version}: ${command.description}` : command.description, style.width))
  if (command.subcommands.length > 0) {
    const rows = (isRoot ? leaves(command) : command.subcommands).map((sub): readonly [string, string] => [
      sub.path.slice(command.path.length).join(" "),
      summaryOf(sub)
    ])
    sections.push([heading("Commands:"), ...definitionList(rows, style.width)])
  }
  if (command.args.length > 0) {
    sections.push([heading("Arguments:"), ...definitionList(command.args.map((arg) => [arg.name, arg.description]), style.width)])
  }
  if (command.options.length > 0) {
    sections.push([heading("Options:"), ...definitionList(command.options.map((option) => [optionLabel(option), optionText(option)]), style.width)])
  }
  if (isRoot) {
    sections.push([heading("Global options (any command):"), ...definitionList(GLOBAL_OPTIONS.map((option) => [optionLabel(option), optionText(option)]), style.width)])
  }
  sections.push([heading("Examples:"), ...examplesOf(command).flatMap((example) => indented(example, style.width, "      ", "  $ "))])
  if (isRoot) {
    sections.push([heading("Exit codes:"), ...definitionList(EXIT_CODE_MEANINGS.map(([code, meaning]) => [String(code), meaning]), style.width)])
  } else {
    sections.push(wrapDisplay("Global options (--help, --version, --completions SHELL, --log-level LEVEL) and exit codes: tool-map --help.", style.width))
  }
  return sections.map((lines) => lines.join("\n")).join("\n\n")
}
