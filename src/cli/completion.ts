// Shell completion. The scripts for bash, zsh and fish are thin: on each TAB they call
// `tool-map __complete SHELL -- WORD...` with the words of the line up to the cursor, and this
// module answers from the command tree (subcommands at every depth, options, the fixed values of
// an option) or asks for more: file names (the shell completes them) or the catalog's paths,
// group and tool names (catalogCompletion.ts reads the catalog). One rule for three shells.
import { type CommandSpec, type OptionSpec, optionNamed } from "./commandTree.js"
import { summaryOf } from "./help.js"
import { COMPLETE_COMMAND, GLOBAL_OPTIONS, type Shell } from "./usage.js"

/** A word the shell may put in place of the one being typed, with a short description. */
export interface Candidate {
  readonly value: string
  readonly description: string
}

/** What the word being typed can become. */
export type Completion =
  | { readonly _tag: "Words"; readonly candidates: ReadonlyArray<Candidate> }
  | { readonly _tag: "Files" }
  | { readonly _tag: "Catalog"; readonly targets: "paths" | "targets" | "unloadTargets"; readonly agent: string; readonly prefix: string }

/** The commands whose arguments name catalog paths, or load and unload targets. */
const CATALOG_ARGUMENTS: Readonly<Record<string, "paths" | "targets" | "unloadTargets">> = {
  "catalog ls": "paths",
  "catalog load": "targets",
  "catalog unload": "unloadTargets"
}

const firstSentence = (text: string) => (text.split(/(?<=\.)\s/)[0] ?? text).replace(/[.]$/, "")

const optionCandidates = (options: ReadonlyArray<OptionSpec>, prefix: string): ReadonlyArray<Candidate> =>
  options.flatMap((option) => option.names.filter((name) => name.startsWith("--") || name.length === 2))
    .filter((name) => name.startsWith(prefix))
    .map((name) => ({ value: name, description: firstSentence(options.find((option) => option.names.includes(name))?.description ?? "") }))

const findOption = (command: CommandSpec, word: string): OptionSpec | undefined =>
  optionNamed(command, word) ?? GLOBAL_OPTIONS.find((option) => option.names.includes(word))

/** The candidates for the last of `words` (possibly empty), the words before it typed after `tool-map`. */
export const complete = (root: CommandSpec, words: ReadonlyArray<string>): Completion => {
  const typed = words.slice(0, -1)
  const current = words[words.length - 1] ?? ""
  let command = root
  let agent = "cli"
  let pending: OptionSpec | undefined
  for (const word of typed) {
    if (pending !== undefined) {
      if (pending.names.includes("--agent")) agent = word
      pending = undefined
      continue
    }
    if (word.startsWith("-")) {
      const option = findOption(command, word.split("=")[0]!)
      if (option !== undefined && option.value.kind !== "flag" && !word.includes("=")) pending = option
      continue
    }
    const child = command.subcommands.find((sub) => sub.name === word)
    if (child !== undefined) command = child
  }
  const words_ = (candidates: ReadonlyArray<Candidate>): Completion => ({ _tag: "Words", candidates })
  if (pending !== undefined) {
    switch (pending.value.kind) {
      case "choice":
        return words_(pending.value.choices.filter((choice) => choice.startsWith(current)).map((value) => ({ value, description: "" })))
      case "file":
        return { _tag: "Files" }
      default:
        return words_([])
    }
  }
  const ownOptions = [...command.options, ...GLOBAL_OPTIONS.filter((option) => option.names.includes("--help"))]
  if (current.startsWith("-")) return words_(optionCandidates(ownOptions, current))
  if (command.subcommands.length > 0) {
    return words_(command.subcommands.filter((sub) => sub.name.startsWith(current)).map((sub) => ({ value: sub.name, description: summaryOf(sub).replace(/[.]$/, "") })))
  }
  const catalog = CATALOG_ARGUMENTS[command.path.slice(1).join(" ")]
  if (catalog !== undefined) return { _tag: "Catalog", targets: catalog, agent, prefix: current }
  if (command.path.join(" ") === "tool-map scan") return { _tag: "Files" }
  return words_(current === "" ? optionCandidates(command.options, "") : [])
}

/** The lines `__complete` prints: one candidate a line (fish: `value<TAB>description`), or `:files` for the shell's own file completion. */
export const renderCandidates = (shell: Shell, candidates: ReadonlyArray<Candidate> | "files"): string => {
  if (candidates === "files") return ":files"
  // A candidate is a whole line: one holding a line break or tab could inject others.
  const safe = (text: string) => text.replace(/[\t\r\n]/g, " ")
  return candidates
    .map((candidate) => (shell === "fish" && candidate.description !== "" ? `${safe(candidate.value)}\t${safe(candidate.description)}` : safe(candidate.value)))
    .join("\n")
}

/** The completion script of a shell, for `tool-map --completions SHELL`. */
export const completionScript = (shell: Shell): string => {
  switch (shell) {
    case "bash":
      return `# bash completion of tool-map: eval "$(tool-map --completions bash)" in ~/.bashrc
_tool_map_complete() {
  local IFS=$'\\n' line
  local -a candidates
  candidates=($(tool-map ${COMPLETE_COMMAND} bash -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
  if [[ "\${candidates[0]}" == ":files" ]]; then
    COMPREPLY=($(compgen -f -- "\${COMP_WORDS[COMP_CWORD]}"))
    compopt -o filenames 2>/dev/null
    return 0
  fi
  COMPREPLY=("\${candidates[@]}")
}
complete -F _tool_map_complete tool-map`
    case "zsh":
      return `#compdef tool-map
# zsh completion of tool-map: eval "$(tool-map --completions zsh)" in ~/.zshrc (after compinit)
_tool_map() {
  local -a candidates
  candidates=("\${(@f)$(tool-map ${COMPLETE_COMMAND} zsh -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ "\${candidates[1]}" == ":files" ]]; then
    _files
    return
  fi
  candidates=(\${candidates:#})
  (( \${#candidates} )) && compadd -Q -- "\${candidates[@]}"
}
compdef _tool_map tool-map`
    case "fish":
      return `# fish completion of tool-map: tool-map --completions fish > ~/.config/fish/completions/tool-map.fish
function __tool_map_complete
    set -l typed (commandline -opc)
    set -e typed[1]
    set -l current (commandline -ct)
    set -l candidates (tool-map ${COMPLETE_COMMAND} fish -- $typed "$current" 2>/dev/null)
    if test "$candidates[1]" = ":files"
        __fish_complete_path (commandline -ct)
        return
    end
    printf '%s\\n' $candidates
end
complete -c tool-map -f -a '(__tool_map_complete)'`
  }
}
