/**
 * Text edits of a host's config file that keep everything else byte for byte: comments,
 * formatting, the order of keys. JSON and JSONC through `jsonc-parser` (`modify` + `applyEdits`);
 * TOML, whose library does not keep comments, by removing the lines of a server's tables and
 * keys and appending new tables. Pure: text in, text out. The caller checks the result by
 * parsing it back (see plan.ts).
 */
import { Either } from "effect"
import { applyEdits, findNodeAtLocation, type FormattingOptions, modify, parse, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser"
import { parse as parseToml, stringify as stringifyToml } from "smol-toml"
import type { ConfigFormat } from "./hostFiles.js"

/** Edits of one format: parse, remove servers from the map, add servers to it. */
export interface ConfigEditor {
  /** The parsed file, or why it does not parse (a line number, never a quote of the text: it holds secrets). */
  readonly parse: (text: string) => Either.Either<unknown, string>
  /** The text without the named servers of the map, or why they cannot be removed safely. */
  readonly remove: (text: string, mapPath: ReadonlyArray<string>, names: ReadonlyArray<string>) => Either.Either<string, string>
  /** The text with the entries added to the map, first or last in it (TOML: always appended); an entry of the same name replaced, in JSON. */
  readonly add: (text: string, mapPath: ReadonlyArray<string>, entries: ReadonlyArray<readonly [string, unknown]>, at: "first" | "last") => string
}

const lineAt = (text: string, offset: number): number => text.slice(0, offset).split("\n").length

/** The indentation and line ending the file already uses (two spaces and LF when it has none). */
const formattingOf = (text: string): FormattingOptions => {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  "
  const eol = text.includes("\r\n") ? "\r\n" : "\n"
  return indent.includes("\t") ? { insertSpaces: false, tabSize: 1, eol } : { insertSpaces: true, tabSize: indent.length, eol }
}

const WHITESPACE = /[ \t\r\n]/

/**
 * The text without one property, its comma and, when it had its lines to itself, those lines:
 * jsonc-parser's own removal takes the blanks and comments before the next property with it,
 * and with formatting on it rewrites the whole line of the edit (a kept neighbour's too).
 */
const removeJsoncProperty = (text: string, path: ReadonlyArray<string>): string => {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false })
  const value = tree === undefined ? undefined : findNodeAtLocation(tree, [...path])
  const property = value?.parent
  const siblings = property?.parent?.children
  if (property === undefined || siblings === undefined) return text
  const start = property.offset
  let end = property.offset + property.length
  let after = end
  while (after < text.length && WHITESPACE.test(text[after]!)) after++
  if (text[after] === ",") end = after + 1
  else {
    // The last property: the comma to drop is the one after the property before it.
    const before = siblings[siblings.indexOf(property) - 1]
    if (before !== undefined) {
      let comma = before.offset + before.length
      while (comma < start && WHITESPACE.test(text[comma]!)) comma++
      if (text[comma] !== ",") return applyEdits(text, modify(text, [...path], undefined, {}))
      const [from, to] = cutRange(text, start, end)
      return `${text.slice(0, comma)}${text.slice(comma + 1, from)}${text.slice(to)}`
    }
  }
  const [from, to] = cutRange(text, start, end)
  return `${text.slice(0, from)}${text.slice(to)}`
}

/** The range to cut for `start`..`end`: whole lines when the range has its lines to itself. */
const cutRange = (text: string, start: number, end: number): readonly [number, number] => {
  const lineStart = text.lastIndexOf("\n", start - 1) + 1
  const rest = restOfLine(text, end)
  return text.slice(lineStart, start).trim() === "" && rest.trim() === "" ? [lineStart, Math.min(text.length, end + rest.length + 1)] : [start, end]
}

const restOfLine = (text: string, from: number): string => {
  const newline = text.indexOf("\n", from)
  return text.slice(from, newline < 0 ? text.length : newline)
}

const jsoncEditor: ConfigEditor = {
  parse: (text) => {
    const errors: Array<ParseError> = []
    const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true })
    const first = errors[0]
    return first === undefined
      ? Either.right(value ?? {})
      : Either.left(`line ${lineAt(text, first.offset)}: ${printParseErrorCode(first.error)}`)
  },
  remove: (text, mapPath, names) => Either.right(names.reduce((current, name) => removeJsoncProperty(current, [...mapPath, name]), text)),
  add: (text, mapPath, entries, at) => {
    const formattingOptions = formattingOf(text)
    const base = text.trim() === "" ? "{}\n" : text
    return entries.reduce(
      (current, [name, value]) =>
        applyEdits(current, modify(current, [...mapPath, name], value, { formattingOptions, getInsertionIndex: (keys) => (at === "first" ? 0 : keys.length) })),
      base
    )
  }
}

interface KeyPath {
  readonly segments: ReadonlyArray<string>
  readonly end: number
}

const BARE = /[A-Za-z0-9_-]/

/** A basic string's value (TOML's escapes are JSON's plus `\e` and `\UXXXXXXXX`), or null. */
const basicString = (quoted: string): string | null => {
  const value = Either.try(() => parseToml(`k = ${quoted}`)["k"])
  return Either.isRight(value) && typeof value.right === "string" ? value.right : null
}

/** The dotted key starting at `from` (bare, "basic" and 'literal' parts), or null. */
const keyPathAt = (line: string, from: number): KeyPath | null => {
  const segments: Array<string> = []
  let at = from
  const skipBlanks = () => {
    while (line[at] === " " || line[at] === "\t") at++
  }
  for (;;) {
    skipBlanks()
    const start = at
    if (line[at] === "\"") {
      at++
      while (at < line.length && line[at] !== "\"") at += line[at] === "\\" ? 2 : 1
      if (at >= line.length) return null
      const value = basicString(line.slice(start, ++at))
      if (value === null) return null
      segments.push(value)
    } else if (line[at] === "'") {
      const close = line.indexOf("'", at + 1)
      if (close < 0) return null
      segments.push(line.slice(at + 1, close))
      at = close + 1
    } else {
      while (at < line.length && BARE.test(line[at]!)) at++
      if (at === start) return null
      segments.push(line.slice(start, at))
    }
    skipBlanks()
    if (line[at] !== ".") return { segments, end: at }
    at++
  }
}

type TomlLine =
  | { readonly _tag: "Header"; readonly path: ReadonlyArray<string>; readonly line: number }
  | { readonly _tag: "Key"; readonly path: ReadonlyArray<string>; readonly start: number; readonly end: number }

const BLANK_OR_COMMENT = /^\s*(#.*)?$/

/** Whether the lines parse on their own: used to find where a key's (multi-line) value ends. */
const parsesAlone = (lines: ReadonlyArray<string>): boolean => Either.isRight(Either.try(() => parseToml(lines.join("\n"))))

/** The headers and keys of a TOML text, each key with the lines its value spans, or why it cannot be read so. */
const tomlLines = (lines: ReadonlyArray<string>): Either.Either<ReadonlyArray<TomlLine>, string> => {
  const found: Array<TomlLine> = []
  let table: ReadonlyArray<string> = []
  for (let at = 0; at < lines.length;) {
    const line = lines[at]!
    if (BLANK_OR_COMMENT.test(line)) {
      at++
      continue
    }
    const header = /^\s*(\[\[?)/.exec(line)
    if (header !== null) {
      const key = keyPathAt(line, header[0].length)
      const close = header[1] === "[[" ? "]]" : "]"
      if (key === null || !line.startsWith(close, key.end) || !BLANK_OR_COMMENT.test(line.slice(key.end + close.length))) {
        return Either.left(`line ${at + 1}: a table header this editor cannot read`)
      }
      table = key.segments
      found.push({ _tag: "Header", path: key.segments, line: at })
      at++
      continue
    }
    const key = keyPathAt(line, 0)
    if (key === null || line[key.end] !== "=") return Either.left(`line ${at + 1}: a line this editor cannot read`)
    let end = at
    while (end < lines.length && !parsesAlone(lines.slice(at, end + 1))) end++
    if (end === lines.length) return Either.left(`line ${at + 1}: a value this editor cannot read`)
    found.push({ _tag: "Key", path: [...table, ...key.segments], start: at, end })
    at = end + 1
  }
  return Either.right(found)
}

const splitLines = (text: string): Array<string> => text.split("\n")

const tomlEditor: ConfigEditor = {
  parse: (text) =>
    Either.mapLeft(Either.try(() => parseToml(text) as unknown), (error) => {
      const line = typeof error === "object" && error !== null && "line" in error && typeof error.line === "number" ? error.line : null
      return line === null ? "it is not valid TOML" : `line ${line}: it is not valid TOML`
    }),
  // Codex's servers are a top-level table: only a path of one segment is given here (hostFiles.ts).
  remove: (text, [mapKey = ""], names) =>
    Either.gen(function*() {
      const lines = splitLines(text)
      const found = yield* tomlLines(lines)
      const drop = new Set<number>()
      const targets = new Set(names)
      for (const [index, item] of found.entries()) {
        if (item._tag === "Key" && item.path.length === 1 && item.path[0] === mapKey) {
          return yield* Either.left(`line ${item.start + 1}: the servers are an inline table (${mapKey} = { … })`)
        }
        if (item.path[0] !== mapKey || item.path.length < 2 || !targets.has(item.path[1]!)) continue
        if (item._tag === "Key") {
          for (let line = item.start; line <= item.end; line++) drop.add(line)
          continue
        }
        // A table runs from the blank lines before its header to its last key; comments after
        // it belong to what follows.
        const next = found.slice(index + 1).find((other) => other._tag === "Header")
        const keys = found.slice(index + 1, next === undefined ? found.length : found.indexOf(next))
        const last = keys.reduce((end, key) => (key._tag === "Key" ? Math.max(end, key.end) : end), item.line)
        let first = item.line
        while (first > 0 && lines[first - 1]!.trim() === "") first--
        for (let line = first; line <= last; line++) drop.add(line)
      }
      return lines.filter((_, index) => !drop.has(index)).join("\n")
    }),
  add: (text, [mapKey = ""], entries) => {
    if (entries.length === 0) return text
    const eol = text.includes("\r\n") ? "\r\n" : "\n"
    const body = stringifyToml({ [mapKey]: Object.fromEntries(entries) }).replaceAll("\n", eol)
    const separator = text === "" || text.endsWith(`${eol}${eol}`) ? "" : text.endsWith(eol) ? eol : `${eol}${eol}`
    return `${text}${separator}${body}`
  }
}

/** The editor of a config format. */
export const editorFor = (format: ConfigFormat): ConfigEditor => (format === "toml" ? tomlEditor : jsoncEditor)

/** The value with every object's keys sorted (dates as ISO text): two values are the same config when these are equal. */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner)
