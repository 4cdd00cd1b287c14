import { Effect, Option } from "effect"
import { ClaudeHooksConfig } from "./config/claudePlugins.js"
import { decodedOrNull } from "./config/decode.js"
import type { HostReading } from "./hostReading.js"

/**
 * A plugin's `SessionStart` hooks (issue 28, point 2). Claude Code 2.1.332 adds what such a hook
 * prints to every session; tool-map never runs one. What it can know without running anything:
 * the text files of the plugin that the hook's scripts name (superpowers' hook prints its
 * `skills/using-superpowers/SKILL.md` inside a short wrapper). Their characters are the known
 * part of the hook's context; what the script prints around them is not known.
 */

/** A script of a hook or a file it names is read up to this size (a hook script is a few KiB). */
const MAX_HOOK_FILE_BYTES = 256 * 1024
/** At most this many files named by one plugin's hooks are read (a guard, not a rule of the host). */
const MAX_NAMED_FILES = 16
/** At most this many hooks, scripts of them, and dispatcher words after a script are looked at (guards). */
const MAX_HOOKS = 16
const MAX_SCRIPTS = 8
const MAX_DISPATCH_WORDS = 2

/**
 * The `SessionStart` hooks of a hooks configuration (`{ hooks: { SessionStart: [...] } }`, or the
 * events at the top level) whose output Claude Code 2.1.332 adds to the context: a command hook's
 * stdout (plain text, or the `hookSpecificOutput.additionalContext` of its JSON; the bundle's
 * `isPlainOutput` responses and `hook_additional_context` attachments), an http hook's answer.
 * Each is given by its command line (null for an http hook).
 */
export const sessionStartHooks = (config: unknown): ReadonlyArray<{ readonly command: string | null }> => {
  const decoded = decodedOrNull(ClaudeHooksConfig, "", config)
  const events = decoded?.hooks ?? decoded
  const found: Array<{ readonly command: string | null }> = []
  for (const matcher of events?.SessionStart ?? []) {
    for (const hook of matcher.hooks ?? []) {
      if (hook.type === "command") found.push({ command: hook.command ?? null })
      else if (hook.type === "http") found.push({ command: null })
    }
  }
  return found
}

const TEXT_FILE = /\.(?:md|txt)$/

const PLUGIN_ROOT_WORD = /^(?:\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT)\/(.+)$/

/**
 * What a hook's command line names, plugin-relative: the scripts under `${CLAUDE_PLUGIN_ROOT}`,
 * and the plain words after the first (a dispatcher's argument, e.g. superpowers'
 * `run-hook.cmd session-start`, which runs the script of that name beside it).
 */
export const hookCommandWords = (command: string): { readonly scripts: ReadonlyArray<string>; readonly words: ReadonlyArray<string> } => {
  const words = command.split(/\s+/).map((word) => word.replace(/^["']|["']$/g, "")).filter((word) => word.length > 0)
  const scripts: Array<string> = []
  const plain: Array<string> = []
  for (const word of words) {
    const match = PLUGIN_ROOT_WORD.exec(word)
    if (match !== null) scripts.push(match[1]!)
    else if (scripts.length > 0 && /^[A-Za-z0-9_.-]+$/.test(word)) plain.push(word)
  }
  return { scripts, words: plain }
}

/**
 * The text files a hook script names, as paths relative to the plugin root: a `.md` or `.txt`
 * path written after a variable and a slash (`"${PLUGIN_ROOT}/skills/x/SKILL.md"`) or on its own
 * (a word that starts with a name, so never one that climbs with `..`).
 */
export const namedTextFiles = (script: string): ReadonlyArray<string> => {
  const found = new Set<string>()
  for (const match of script.matchAll(/(?:^|[\s"'=(]|\}\/|\$[A-Za-z_][A-Za-z0-9_]*\/)((?:[A-Za-z0-9_-][A-Za-z0-9_.-]*\/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.(?:md|txt))(?=$|[\s"');])/gm)) {
    const path = match[1]!
    if (!path.split("/").includes("..")) found.add(path)
  }
  return [...found]
}

/** What tool-map knows of a plugin's `SessionStart` hooks without running them. */
export interface SessionStartFinding {
  /** Hooks that add context (command and http). */
  readonly hooks: number
  /** Characters of the plugin's text files their scripts name (the known part of what they add). */
  readonly knownChars: number
}

/**
 * Reads the scripts of a plugin's context-adding `SessionStart` hooks and the text files they
 * name: inside the plugin root and reached through no link, each regular and within its cap, and
 * a bounded number of each.
 */
export const sessionStartFinding = (
  c: HostReading,
  root: string,
  hooks: ReadonlyArray<{ readonly command: string | null }>
): Effect.Effect<SessionStartFinding> =>
  Effect.gen(function* () {
    const path = c.path
    const inside = (relative: string): string | null => {
      const full = path.resolve(root, relative)
      const within = path.relative(root, full)
      return within === "" || within.startsWith("..") || path.isAbsolute(within) ? null : full
    }
    // A regular file inside the plugin reached through no link (a link could lead out of the plugin).
    const plainFile = (full: string) =>
      Effect.gen(function* () {
        const segments = path.relative(root, full).split(path.sep)
        for (let depth = 1; depth <= segments.length; depth++) {
          if (yield* c.isLink(path.join(root, ...segments.slice(0, depth)))) return false
        }
        return (yield* c.probe(full))._tag === "file"
      })
    const text = (file: string) =>
      Effect.map(c.readFile(file, null, MAX_HOOK_FILE_BYTES), Option.map((read) => new TextDecoder("utf-8").decode(read.bytes)))
    // Every count below is bounded: a hooks file of 1 MiB may name thousands of scripts and words.
    const scripts = new Set<string>()
    const addScript = (full: string | null) =>
      Effect.gen(function* () {
        if (full !== null && !scripts.has(full) && scripts.size < MAX_SCRIPTS && (yield* plainFile(full))) scripts.add(full)
      })
    for (const hook of hooks.slice(0, MAX_HOOKS)) {
      if (hook.command === null) continue
      const named = hookCommandWords(hook.command)
      for (const script of named.scripts.slice(0, MAX_SCRIPTS)) {
        yield* addScript(inside(script))
        for (const word of named.words.slice(0, MAX_DISPATCH_WORDS)) yield* addScript(inside(path.join(path.dirname(script), word)))
      }
    }
    const files = new Set<string>()
    // A command that names a text file of the plugin itself (`cat ${CLAUDE_PLUGIN_ROOT}/intro.md`) prints it.
    for (const script of scripts) if (TEXT_FILE.test(script) && files.size < MAX_NAMED_FILES) files.add(script)
    for (const script of scripts) {
      if (TEXT_FILE.test(script)) continue
      const body = yield* text(script)
      if (Option.isNone(body)) continue
      for (const relative of namedTextFiles(body.value).slice(0, MAX_NAMED_FILES)) {
        const full = inside(relative)
        if (full !== null && !files.has(full) && files.size < MAX_NAMED_FILES && (yield* plainFile(full))) files.add(full)
      }
    }
    let knownChars = 0
    for (const file of files) knownChars += Option.match(yield* text(file), { onNone: () => 0, onSome: (body) => body.length })
    return { hooks: hooks.length, knownChars }
  })
