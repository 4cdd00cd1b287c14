import { Context, Effect, Either, Layer, Schema } from "effect"
import { Composer, isAlias, isMap, isScalar, isSeq, LineCounter, Parser } from "yaml"
import type { CST, Node as YamlNode } from "yaml"
import { redactSecrets } from "../domain/secrets.js"
import { withoutStackTraces } from "../domain/stackTraces.js"
import { simpleFrontmatter } from "./simpleFrontmatter.js"

/** A value of untrusted frontmatter: JSON-like, maps are null-prototype objects. */
export type FrontmatterValue =
  | string
  | number
  | boolean
  | null
  | ReadonlyArray<FrontmatterValue>
  | FrontmatterFields

/** A mapping of frontmatter; built with a null prototype, so `__proto__` is an ordinary key. */
export interface FrontmatterFields {
  readonly [key: string]: FrontmatterValue
}

/** The caps that keep a hostile file from costing more than a small, fixed amount. */
export interface FrontmatterLimits {
  /** Largest file accepted, checked before decoding or parsing. */
  readonly maxFileBytes: number
  /** Largest frontmatter block (between the fences). */
  readonly maxFrontmatterBytes: number
  /** Most alias references resolved in one file (billion laughs stops here). */
  readonly maxAliasCount: number
  /** Deepest nesting of collections, checked on the token stream before composing. */
  readonly maxDepth: number
  /** Most values built, aliases expanded (a second guard against expansion). */
  readonly maxNodes: number
}

/** The caps used by the live layer. */
export const defaultFrontmatterLimits: FrontmatterLimits = {
  maxFileBytes: 256 * 1024,
  maxFrontmatterBytes: 64 * 1024,
  maxAliasCount: 100,
  maxDepth: 64,
  maxNodes: 10_000
}

/** A problem that does not stop the file from being an item (a `---js` fence, a bad field). */
export interface FrontmatterWarning {
  readonly line: number | null
  readonly message: string
}

/** A markdown file split into its frontmatter fields and its body. */
export interface ParsedMarkdown {
  /** The frontmatter mapping; empty when there is none (or it is empty / null). */
  readonly fields: FrontmatterFields
  readonly hasFrontmatter: boolean
  /** Everything after the closing fence (the whole text when there is no frontmatter), LF line ends. */
  readonly body: string
  /** 1-based line of the file where `body` starts. */
  readonly bodyLine: number
  readonly warnings: ReadonlyArray<FrontmatterWarning>
  /**
   * Only in the `claude-code` dialect: why the host reads none of the frontmatter's fields (YAML
   * that fails even after the host's retry, a list or a scalar instead of a mapping). `fields`
   * is then empty; what that means depends on the item (see markdownItems.ts).
   */
  readonly fieldsDropped?: FrontmatterWarning
}

/**
 * How a host reads frontmatter. `yaml`: strict YAML 1.2 between `---` lines, any failure makes
 * the file unusable. `claude-code`: as Claude Code reads it (see {@link splitClaudeCode}).
 */
export type FrontmatterDialect = "yaml" | "claude-code"

/** A file whose frontmatter cannot be used: the host would not load it either. */
export class FrontmatterError extends Schema.TaggedError<FrontmatterError>()("FrontmatterError", {
  path: Schema.String,
  /** 1-based line in the file, when the problem has one. */
  line: Schema.NullOr(Schema.Number),
  reason: Schema.String
}) {
  get message() {
    return `${this.path}${this.line === null ? "" : `:${this.line}`}: ${this.reason}`
  }
}

/** Parses YAML frontmatter of untrusted markdown (agents, skills, commands) without evaluating anything. */
export class FrontmatterParser extends Context.Tag("tool-map/FrontmatterParser")<FrontmatterParser, {
  readonly limits: FrontmatterLimits
  /** Checks size, NUL bytes and UTF-8, then parses the text (strict YAML unless another dialect is named). */
  readonly parse: (path: string, bytes: Uint8Array, dialect?: FrontmatterDialect) => Effect.Effect<ParsedMarkdown, FrontmatterError>
  /** `parse` as a plain value, for readers of thousands of files (no effect, no span per file). */
  readonly parseBytes: (path: string, bytes: Uint8Array, dialect?: FrontmatterDialect) => Either.Either<ParsedMarkdown, FrontmatterError>
  readonly parseText: (path: string, text: string, dialect?: FrontmatterDialect) => Effect.Effect<ParsedMarkdown, FrontmatterError>
}>() {
  static readonly layer = Layer.sync(this, () => makeFrontmatterParser(defaultFrontmatterLimits))
  /** The parser with some caps changed (tests, embedding hosts with other budgets). */
  static readonly layerWith = (limits: Partial<FrontmatterLimits>) =>
    Layer.sync(this, () => makeFrontmatterParser({ ...defaultFrontmatterLimits, ...limits }))
}

/**
 * Builds the parser's implementation for the given caps. `simpleLines: false` sends every block
 * to the YAML library (the fast path's tests compare the two).
 */
export const makeFrontmatterParser = (limits: FrontmatterLimits, options: { readonly simpleLines?: boolean } = {}): FrontmatterParser["Type"] => {
  const reading: Reading = { ...limits, simpleLines: options.simpleLines ?? true }
  const parseText = Effect.fn("FrontmatterParser.parseText")(function* (path: string, text: string, dialect: FrontmatterDialect = "yaml") {
    const result = dialect === "yaml" ? splitAndParse(text, reading) : splitClaudeCode(text, reading)
    if (result instanceof Failure) return yield* new FrontmatterError({ path, line: result.line, reason: result.reason })
    return result
  })
  // Called once per file of every agent home: the checks and the parse are one pure step.
  const parseBytes = (path: string, bytes: Uint8Array, dialect: FrontmatterDialect = "yaml"): Either.Either<ParsedMarkdown, FrontmatterError> => {
    const result = checkAndParse(bytes, reading, dialect)
    return result instanceof Failure ? Either.left(new FrontmatterError({ path, line: result.line, reason: result.reason })) : Either.right(result)
  }
  const parse = Effect.fn("FrontmatterParser.parse")(function* (path: string, bytes: Uint8Array, dialect: FrontmatterDialect = "yaml") {
    return yield* parseBytes(path, bytes, dialect)
  })
  return { limits, parse, parseBytes, parseText }
}

/** The caps, and whether blocks of plain `key: value` lines are read without the YAML library ({@link simpleFrontmatter}). */
interface Reading extends FrontmatterLimits {
  readonly simpleLines: boolean
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** Size cap, NUL bytes and strict UTF-8 before any parsing. */
const checkAndParse = (bytes: Uint8Array, limits: Reading, dialect: FrontmatterDialect): ParsedMarkdown | Failure => {
  if (bytes.length > limits.maxFileBytes) return new Failure(null, `file is ${bytes.length} bytes, over the ${limits.maxFileBytes}-byte cap`)
  const nul = bytes.indexOf(0)
  if (nul !== -1) return new Failure(lineOfByte(bytes, nul), "file contains NUL bytes (binary, not markdown)")
  const text = decodeStrict(bytes)
  if (text === null) return new Failure(null, "file is not valid UTF-8")
  return dialect === "yaml" ? splitAndParse(text, limits) : splitClaudeCode(text, limits)
}

// TextDecoder signals bad input only by throwing; this is the one place that catches it.
const decodeStrict = (bytes: Uint8Array): string | null => {
  try {
    return UTF8.decode(bytes)
  } catch {
    return null
  }
}

/**
 * Why a file cannot be used. `syntax`: the YAML does not parse (Claude Code retries those);
 * `shape`: it parses to a list or a scalar; `limit`: one of tool-map's own caps or refusals.
 */
class Failure {
  constructor(readonly line: number | null, readonly reason: string, readonly kind: "syntax" | "shape" | "limit" = "limit") {}
}

const lineOfByte = (bytes: Uint8Array, index: number): number => {
  let line = 1
  for (let i = 0; i < index; i++) if (bytes[i] === 10) line++
  return line
}

const FENCE = /^---[ \t]*$/
const LANGUAGE_FENCE = /^---([^\s-][^\s]*)[ \t]*$/

/** Splits the fences and parses the block; a pure function so that properties can drive it directly. */
const splitAndParse = (raw: string, limits: Reading): ParsedMarkdown | Failure => {
  const text = (raw.startsWith("\uFEFF") ? raw.slice(1) : raw).replace(/\r\n?/g, "\n")
  const firstEnd = text.indexOf("\n")
  const firstLine = firstEnd === -1 ? text : text.slice(0, firstEnd)
  const language = LANGUAGE_FENCE.exec(firstLine)
  if (language !== null) {
    return {
      fields: emptyFields(),
      hasFrontmatter: false,
      body: text,
      bodyLine: 1,
      warnings: [{ line: 1, message: `a \`---${language[1]}\` block is not YAML frontmatter; it was neither parsed nor evaluated` }]
    }
  }
  if (!FENCE.test(firstLine)) return { fields: emptyFields(), hasFrontmatter: false, body: text, bodyLine: 1, warnings: [] }
  if (firstEnd === -1) return new Failure(1, "unclosed frontmatter: the opening `---` has no closing `---`")
  let lineStart = firstEnd + 1
  let line = 2
  let closeStart = -1
  let closeEnd = -1
  while (lineStart <= text.length) {
    const end = text.indexOf("\n", lineStart)
    const lineEnd = end === -1 ? text.length : end
    if (FENCE.test(text.slice(lineStart, lineEnd))) {
      closeStart = lineStart
      closeEnd = end === -1 ? text.length : end + 1
      break
    }
    if (end === -1) break
    lineStart = end + 1
    line++
  }
  if (closeStart === -1) return new Failure(1, "unclosed frontmatter: the opening `---` has no closing `---`")
  const block = text.slice(firstEnd + 1, closeStart)
  const body = text.slice(closeEnd)
  const bodyLine = line + 1
  if (Buffer.byteLength(block, "utf8") > limits.maxFrontmatterBytes) {
    return new Failure(2, `frontmatter is over the ${limits.maxFrontmatterBytes}-byte cap`)
  }
  const fields = asMapping(parseYamlBlock(block, limits, 1, STRICT), 2)
  if (fields instanceof Failure) return fields
  return { fields, hasFrontmatter: true, body, bodyLine, warnings: [] }
}

/** A parsed block as fields: null is none, a list or a scalar is a `shape` failure at `line`. */
const asMapping = (value: FrontmatterValue | Failure, line: number): FrontmatterFields | Failure => {
  if (value instanceof Failure) return value
  if (value === null) return emptyFields()
  if (typeof value !== "object" || Array.isArray(value)) {
    const what = Array.isArray(value) ? "a list" : `a ${typeof value}`
    return new Failure(line, `frontmatter is ${what}, not a mapping of fields`, "shape")
  }
  return value as FrontmatterFields
}

// Claude Code 2.1.332 (its frontmatter reader, checked against `claude -p` session starts):
// the block runs from an opening `---` line to the first `---` anywhere after it (even inside a
// value); a file without a closing `---` has no frontmatter.
const CLAUDE_CODE_FENCES = /^---\s*\n([\s\S]*?)---\s*\n?/
const CLAUDE_CODE_OPENING = /^---\s*\n/

/**
 * Frontmatter as Claude Code reads it (2.1.332, verified with `claude -p` session starts and
 * `claude plugin validate`): a BOM is dropped, line ends are kept, the fences are
 * {@link CLAUDE_CODE_FENCES}; YAML keys may repeat (the last wins) and unknown tags are ignored;
 * YAML that fails is read again with the values of its top-level `key: value` lines quoted and
 * leading tabs made spaces ({@link quoteLikeClaudeCode}), and a warning says so; YAML that still
 * fails, or a list or scalar, gives no fields (`fieldsDropped`). tool-map's own caps still apply.
 */
const splitClaudeCode = (raw: string, limits: Reading): ParsedMarkdown | Failure => {
  const text = raw.startsWith("\uFEFF") ? raw.slice(1) : raw
  const match = text.indexOf("---", 3) < 0 ? null : CLAUDE_CODE_FENCES.exec(text)
  if (match === null) {
    const unclosed = CLAUDE_CODE_OPENING.test(text) || FENCE.test(text.split("\n", 1)[0]!)
    return {
      fields: emptyFields(),
      hasFrontmatter: false,
      body: toLf(text),
      bodyLine: 1,
      warnings: [],
      ...(unclosed ? { fieldsDropped: { line: 1, message: "unclosed frontmatter: no `---` closes the opening one" } } : {})
    }
  }
  const block = match[1]!
  const opening = CLAUDE_CODE_OPENING.exec(text)![0]
  const lineOffset = newlines(opening)
  const body = toLf(text.slice(match[0].length))
  const bodyLine = newlines(match[0]) + 1
  if (Buffer.byteLength(block, "utf8") > limits.maxFrontmatterBytes) {
    return new Failure(lineOffset + 1, `frontmatter is over the ${limits.maxFrontmatterBytes}-byte cap`)
  }
  const strict = asMapping(parseYamlBlock(toLf(block), limits, lineOffset, CLAUDE_CODE), lineOffset + 1)
  if (!(strict instanceof Failure)) return { fields: strict, hasFrontmatter: true, body, bodyLine, warnings: [] }
  if (strict.kind === "limit") return strict
  const dropped = (failure: Failure): ParsedMarkdown => ({
    fields: emptyFields(),
    hasFrontmatter: true,
    body,
    bodyLine,
    warnings: [],
    fieldsDropped: { line: failure.line, message: failure.reason }
  })
  if (strict.kind === "shape") return dropped(strict)
  const retried = asMapping(parseYamlBlock(toLf(quoteLikeClaudeCode(block)), limits, lineOffset, CLAUDE_CODE), lineOffset + 1)
  if (retried instanceof Failure) return retried.kind === "limit" ? retried : dropped(strict)
  return {
    fields: retried,
    hasFrontmatter: true,
    body,
    bodyLine,
    warnings: [{ line: strict.line, message: `${strict.reason}; Claude Code reads it after quoting the values of its top-level \`key: value\` lines` }]
  }
}

const toLf = (text: string): string => text.replace(/\r\n?/g, "\n")

const newlines = (text: string): number => {
  let count = 0
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) count++
  return count
}

// Claude Code's retry, as written in 2.1.332: a top-level line `key: value` (a key of letters, `_`
// and `-`) whose value holds one of these characters or `: ` gets the value double-quoted,
// unless it is quoted already or a flow list that parses. A line ending in `\r` never matches
// (`.` stops at it), so a CRLF file is not retried.
const CLAUDE_CODE_KEY_LINE = /^([a-zA-Z_-]+):\s+(\S.*)$/
const CLAUDE_CODE_NEEDS_QUOTES = /[{}[\]*&#!|>%@`]|: /

/** Claude Code's second reading of frontmatter that fails as YAML: values quoted, leading tabs made spaces. */
export const quoteLikeClaudeCode = (block: string): string =>
  block
    .split("\n")
    .map((line) => {
      const match = CLAUDE_CODE_KEY_LINE.exec(line)
      if (match === null) return line
      const [, key, value] = match as unknown as readonly [string, string, string]
      if ((value.startsWith("\"") && value.endsWith("\"")) || (value.startsWith("'") && value.endsWith("'"))) return line
      if (value.startsWith("[") && value.endsWith("]") && isFlowList(value)) return line
      if (!CLAUDE_CODE_NEEDS_QUOTES.test(value)) return line
      return `${key}: "${value.replaceAll("\\", "\\\\").replaceAll("\"", "\\\"")}"`
    })
    .join("\n")
    .replace(/^\t+/gm, (tabs) => "  ".repeat(tabs.length))

const isFlowList = (text: string): boolean => Array.isArray(parseYamlBlock(text, LIBRARY_ONLY, 0, CLAUDE_CODE))

/** The default caps, every block read by the YAML library. */
const LIBRARY_ONLY: Reading = { ...defaultFrontmatterLimits, simpleLines: false }

const emptyFields = (): FrontmatterFields => Object.create(null) as FrontmatterFields

/** How strictly a block is composed: repeated keys and unknown tags refused (strict) or let through (Claude Code). */
interface YamlRules {
  readonly uniqueKeys: boolean
  readonly anyTag: boolean
}
const STRICT: YamlRules = { uniqueKeys: true, anyTag: false }
const CLAUDE_CODE: YamlRules = { uniqueKeys: false, anyTag: true }

const ALLOWED_TAGS = new Set(
  ["str", "int", "float", "bool", "null", "seq", "map"].map((name) => `tag:yaml.org,2002:${name}`)
)

/**
 * Parses one YAML block into plain values. Nesting is measured on the token stream first: the
 * composer recurses per level, and a 20,000-deep flow sequence exhausts the process.
 * `lineOffset` is the number of file lines before the block.
 */
const parseYamlBlock = (source: string, limits: Reading, lineOffset: number, rules: YamlRules): FrontmatterValue | Failure => {
  const simple = limits.simpleLines ? simpleFrontmatter(source, limits) : undefined
  if (simple !== undefined) return simple
  const lines = new LineCounter()
  const lineOf = (offset: number) => lines.linePos(offset).line + lineOffset
  const tokens = Array.from(new Parser(lines.addNewLine).parse(source))
  const deep = deepestCollection(tokens, limits.maxDepth)
  if (deep !== null) return new Failure(lineOf(deep), `frontmatter nests deeper than ${limits.maxDepth} levels`)
  // The library's own check of unique keys compares each key with every earlier one (a 60 KB
  // block of keys took seconds): duplicates are found below, in one pass. A hostile block makes
  // the composer build an error per line: thousands, none of whose traces is read.
  const composer = new Composer({ version: "1.2", schema: "core", uniqueKeys: false, strict: true, merge: false, customTags: [] })
  const documents = withoutStackTraces(() => Array.from(composer.compose(tokens, true, source.length)))
  if (documents.length > 1) return new Failure(lineOf(documents[1]?.range[0] ?? 0), "frontmatter holds more than one YAML document", "syntax")
  const document = documents[0]
  if (document === undefined) return null
  const contents = document.contents as YamlNode | null
  const duplicate = rules.uniqueKeys && contents !== null ? firstDuplicateKey(contents) : null
  const error = document.errors[0]
  if (duplicate !== null && (error === undefined || duplicate < error.pos[0])) {
    return new Failure(lineOf(duplicate), `invalid YAML: ${DUPLICATE_KEY_MESSAGE}`, "syntax")
  }
  if (error !== undefined) return new Failure(lineOf(error.pos[0]), `invalid YAML: ${shortMessage(error)}`, "syntax")
  return contents === null ? null : new ValueBuilder(limits, lineOf, rules.anyTag).build(contents, 0)
}

// Messages of these codes quote the file (`Unresolved tag: !x`, `Invalid escape sequence \\x`):
// their code is said in words instead.
const QUOTING_CODES = new Set(["UNEXPECTED_TOKEN", "BAD_PROP_ORDER", "TAG_RESOLVE_FAILED", "BAD_SCALAR_START", "BAD_DQ_ESCAPE", "BAD_COLLECTION_TYPE"])

// The rest keep their first sentence (the excerpt of the source follows it), capped.
const shortMessage = (error: { readonly code: string; readonly message: string }): string => {
  if (QUOTING_CODES.has(error.code)) return error.code.toLowerCase().replace(/_/g, " ")
  const first = error.message.split("\n")[0] ?? error.message
  return first.length > 160 ? `${first.slice(0, 157)}...` : first
}

/** A tag as a diagnostic names it: a tag of the YAML namespace by its name, any other (file text) only by its kind. */
const tagName = (tag: string): string => (/^tag:yaml\.org,2002:[a-z/]{1,24}$/.test(tag) ? `tag ${tag}` : "a custom tag")

/** The offset of the first collection nested deeper than `max`, or null. Iterative. */
const deepestCollection = (tokens: ReadonlyArray<CST.Token>, max: number): number | null => {
  const stack: Array<readonly [CST.Token, number]> = tokens.map((token) => [token, 0] as const)
  while (stack.length > 0) {
    const [token, depth] = stack.pop()!
    if (token.type === "document") {
      if (token.value !== undefined) stack.push([token.value, depth])
    } else if (token.type === "block-map" || token.type === "block-seq" || token.type === "flow-collection") {
      const inner = depth + 1
      if (inner > max) return token.offset
      for (const item of token.items) {
        if ("key" in item && item.key !== undefined && item.key !== null) stack.push([item.key, inner])
        if (item.value !== undefined) stack.push([item.value, inner])
      }
    }
  }
  return null
}

/** What the library says of a key met twice in one mapping. */
const DUPLICATE_KEY_MESSAGE = "Map keys must be unique"

/**
 * The offset of the first key (by position) that repeats an earlier key of its mapping, or null:
 * the library's rule (two keys are equal when they are scalars of equal value; NaN equals
 * nothing), with a set per mapping. Iterative; aliases are not followed (their target is checked
 * where it stands).
 */
const firstDuplicateKey = (root: YamlNode): number | null => {
  let first: number | null = null
  const stack: Array<unknown> = [root]
  while (stack.length > 0) {
    const node = stack.pop()
    if (isSeq(node)) {
      for (const item of node.items) stack.push(item)
    } else if (isMap(node)) {
      const seen = new Set<unknown>()
      for (const pair of node.items) {
        const key = pair.key
        if (isScalar(key) && !Number.isNaN(key.value)) {
          const offset = key.range?.[0]
          if (seen.has(key.value) && offset !== undefined && (first === null || offset < first)) first = offset
          seen.add(key.value)
        }
        stack.push(key, pair.value)
      }
    }
  }
  return first
}

/** Builds null-prototype values from the composed document, counting aliases and values. */
class ValueBuilder {
  private aliases = 0
  private nodes = 0
  private readonly anchors = new Map<string, YamlNode>()

  constructor(
    private readonly limits: FrontmatterLimits,
    private readonly lineOf: (offset: number) => number,
    /** Unknown tags are ignored (the value read as if untagged) instead of refused. */
    private readonly anyTag: boolean
  ) {}

  build(node: YamlNode, depth: number): FrontmatterValue | Failure {
    const line = this.lineOf(node.range?.[0] ?? 0)
    if (depth > this.limits.maxDepth) return new Failure(line, `frontmatter nests deeper than ${this.limits.maxDepth} levels`)
    if (++this.nodes > this.limits.maxNodes) return new Failure(line, `frontmatter expands to more than ${this.limits.maxNodes} values`)
    if (isAlias(node)) {
      if (++this.aliases > this.limits.maxAliasCount) {
        return new Failure(line, `frontmatter uses more than ${this.limits.maxAliasCount} aliases`)
      }
      const target = this.anchors.get(node.source)
      if (target === undefined) return new Failure(line, `alias *${node.source} has no anchor before it`, "syntax")
      return this.build(target, depth)
    }
    const tag = node.tag
    if (tag !== undefined && !ALLOWED_TAGS.has(tag) && !this.anyTag) {
      return new Failure(line, `${tagName(tag)} is not allowed (only plain YAML values are read)`)
    }
    const value = this.buildInner(node, depth)
    // Registered after the node is built, so a node cannot refer to itself.
    if (node.anchor !== undefined && node.anchor !== null) this.anchors.set(node.anchor, node)
    return value
  }

  private buildInner(node: YamlNode, depth: number): FrontmatterValue | Failure {
    if (isScalar(node)) {
      const value = node.value
      if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value
      if (typeof value === "bigint") return Number(value)
      return String(value)
    }
    if (isSeq(node)) {
      const out: Array<FrontmatterValue> = []
      for (const item of node.items as ReadonlyArray<YamlNode | null>) {
        if (item === null) {
          out.push(null)
          continue
        }
        const value = this.build(item, depth + 1)
        if (value instanceof Failure) return value
        out.push(value)
      }
      return out
    }
    if (isMap(node)) {
      const out = Object.create(null) as Record<string, FrontmatterValue>
      const merged: Array<FrontmatterFields> = []
      for (const pair of node.items) {
        const keyNode = pair.key as YamlNode | null
        const key = keyNode === null ? "" : this.keyOf(keyNode)
        if (key instanceof Failure) return key
        const valueNode = pair.value as YamlNode | null
        const value = valueNode === null ? null : this.build(valueNode, depth + 1)
        if (value instanceof Failure) return value
        if (key === "<<" && isMergeSource(value)) {
          merged.push(...(Array.isArray(value) ? (value as ReadonlyArray<FrontmatterFields>) : [value as FrontmatterFields]))
        } else {
          out[key] = value
        }
      }
      // YAML 1.1 merge keys: explicit keys win, earlier sources win over later ones.
      for (const source of merged) {
        for (const key of Object.keys(source)) if (!Object.hasOwn(out, key)) out[key] = source[key] ?? null
      }
      return out
    }
    return new Failure(this.lineOf(node.range?.[0] ?? 0), "unsupported YAML node")
  }

  private keyOf(node: YamlNode): string | Failure {
    if (isAlias(node)) {
      const value = this.build(node, 0)
      if (value instanceof Failure) return value
      if (value === null || typeof value !== "object") return String(value)
      return new Failure(this.lineOf(node.range?.[0] ?? 0), "a mapping key must be a plain value")
    }
    if (!isScalar(node)) return new Failure(this.lineOf(node.range?.[0] ?? 0), "a mapping key must be a plain value")
    if (node.tag !== undefined && !ALLOWED_TAGS.has(node.tag) && !this.anyTag) {
      return new Failure(this.lineOf(node.range?.[0] ?? 0), `${tagName(node.tag)} is not allowed`)
    }
    if (node.anchor !== undefined && node.anchor !== null) this.anchors.set(node.anchor, node)
    return String(node.value)
  }
}

const isFields = (value: FrontmatterValue): value is FrontmatterFields =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const isMergeSource = (value: FrontmatterValue): boolean =>
  isFields(value) || (Array.isArray(value) && value.length > 0 && value.every((entry) => isFields(entry as FrontmatterValue)))

/**
 * Splits a tool list written as one string: on commas outside parentheses
 * (`Bash(git diff:*), Read` is two entries); a string without such a comma is split on
 * whitespace outside parentheses (`Read Grep Bash(ls *)`, the form skills' `allowed-tools` use).
 */
export const splitToolList = (text: string): ReadonlyArray<string> => {
  const split = (separator: (char: string) => boolean) => {
    const parts: Array<string> = []
    let depth = 0
    let current = ""
    for (const char of text) {
      if (char === "(") depth++
      else if (char === ")") depth = Math.max(0, depth - 1)
      if (depth === 0 && separator(char)) {
        parts.push(current)
        current = ""
      } else {
        current += char
      }
    }
    parts.push(current)
    return parts.map((part) => part.trim()).filter((part) => part.length > 0)
  }
  const byComma = split((char) => char === ",")
  return byComma.length > 1 ? byComma : split((char) => char === " " || char === "\t" || char === "\n")
}

/** A tool-list field read from frontmatter: the list, or why the value was not one. */
export type ToolListField =
  | { readonly _tag: "absent" }
  | { readonly _tag: "list"; readonly tools: ReadonlyArray<string> }
  | { readonly _tag: "invalid"; readonly reason: string }

/** Reads a tool-list field: a YAML list of strings or a comma-separated string. */
export const readToolList = (value: FrontmatterValue | undefined): ToolListField => {
  if (value === undefined || value === null) return { _tag: "absent" }
  // Redacted before it is split: `Authorization: Bearer X` split on blanks is three words, and
  // the value, alone in its entry, would no longer look like one.
  if (typeof value === "string") return { _tag: "list", tools: splitToolList(redactSecrets(value)) }
  if (Array.isArray(value)) {
    const entries = value as ReadonlyArray<FrontmatterValue>
    if (entries.every((entry) => typeof entry === "string")) {
      return { _tag: "list", tools: (entries as ReadonlyArray<string>).map((entry) => entry.trim()).filter((entry) => entry.length > 0) }
    }
    return { _tag: "invalid", reason: "a list with entries that are not strings" }
  }
  return { _tag: "invalid", reason: `a ${typeof value === "object" ? "mapping" : typeof value}, not a list or a comma-separated string` }
}
