// Most frontmatter is a handful of `key: value` lines whose values can only be read one way. The
// YAML library builds a token stream, a document and its nodes for each (about 30 µs a file, and
// most of a scan's garbage); these lines are read here instead, and everything else goes to the
// library. test/properties/frontmatterFastPath.property.test.ts holds both readers to the same
// values over generated blocks, the library deciding.

/** A block holding a character YAML treats apart (tab, control, BOM, non-characters) goes to the library. */
const SPECIAL_CHARACTER = /[\x00-\x09\x0b-\x1f\x7f-\x9f\ufeff\ufffe\uffff]/

/**
 * `key: value` at the start of a line (or `key:` alone, a null): the key a plain word of at most
 * 1,000 characters, one or more spaces after the colon. YAML refuses an implicit key over 1,024
 * characters, and the library counts one more after a line with no value: longer keys go to it.
 */
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]{0,999}):(?: +(.*?))? *$/

/** Words the core schema reads as a boolean or null (in keys, where they would be renamed, and in values). */
const CORE_WORDS: Readonly<Record<string, boolean | null>> = {
  true: true,
  True: true,
  TRUE: true,
  false: false,
  False: false,
  FALSE: false,
  null: null,
  Null: null,
  NULL: null,
  "~": null
}

/** A double-quoted string whose escapes are JSON's (YAML has them all, with the same meaning), no lone surrogate. */
const DOUBLE_QUOTED_TEXT = String.raw`"(?:[^"\\]|\\["\\/bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*"`
const DOUBLE_QUOTED = new RegExp(`^${DOUBLE_QUOTED_TEXT}$`)
const SINGLE_QUOTED = /^'[^']*'$/
/** An integer the core schema reads as a number, without a sign or leading zero, exact as a double. */
const SMALL_INTEGER = /^(?:0|[1-9][0-9]{0,14})$/
/** A plain (unquoted) string: it starts with a letter, `_`, `/` or `(`, and holds no `: ` or ` #`. */
const PLAIN_STRING = /^[A-Za-z_/(](?:(?!: | #).)*$/
/** One item of a flow list (a quoted string or a plain word such as `Read`) and what follows it: `,` or the closing `]` at the end. */
const FLOW_ITEM = new RegExp(String.raw` *(${DOUBLE_QUOTED_TEXT}|'[^']*'|[A-Za-z_][A-Za-z0-9_./-]*) *(,|\]$)`, "y")

/** The values read here: scalars and flat lists of strings (a kind of the parser's FrontmatterValue). */
type SimpleValue = string | number | boolean | null | ReadonlyArray<string>

/** Not read here: the library decides. */
const UNREAD = Symbol("unread")

const scalar = (text: string): SimpleValue | typeof UNREAD => {
  if (Object.hasOwn(CORE_WORDS, text)) return CORE_WORDS[text] as boolean | null
  const first = text.charCodeAt(0)
  if (first === 34) return DOUBLE_QUOTED.test(text) ? (JSON.parse(text) as string) : UNREAD
  if (first === 39) return SINGLE_QUOTED.test(text) ? text.slice(1, -1) : UNREAD
  if (SMALL_INTEGER.test(text)) return Number(text)
  return PLAIN_STRING.test(text) && !text.endsWith(":") ? text : UNREAD
}

/** `[a, "b", 'c']`: the strings, or UNREAD for any other flow collection. */
const flowList = (text: string): ReadonlyArray<string> | typeof UNREAD => {
  if (/^\[ *\]$/.test(text)) return []
  const items: Array<string> = []
  FLOW_ITEM.lastIndex = 1
  for (;;) {
    const match = FLOW_ITEM.exec(text)
    if (match === null) return UNREAD
    const item = match[1]!
    if (item.charCodeAt(0) === 34) items.push(JSON.parse(item) as string)
    else if (item.charCodeAt(0) === 39) items.push(item.slice(1, -1))
    else if (Object.hasOwn(CORE_WORDS, item)) return UNREAD
    else items.push(item)
    if (match[2] === "]") return FLOW_ITEM.lastIndex === text.length ? items : UNREAD
  }
}

/**
 * The fields of a block made only of `key: value` lines (blank lines between them) with values
 * that can only be read one way, or undefined for any other block. The parser's caps hold: a
 * block with more values than `maxNodes`, or nested deeper than `maxDepth` (the mapping is one
 * level, a flow list two), goes to the library, which says so.
 */
export const simpleFrontmatter = (
  block: string,
  limits: { readonly maxNodes: number; readonly maxDepth: number }
): { readonly [key: string]: SimpleValue } | undefined => {
  if (limits.maxDepth < 1 || SPECIAL_CHARACTER.test(block)) return undefined
  const fields = Object.create(null) as Record<string, SimpleValue>
  let nodes = 1
  let keys = 0
  for (const line of block.split("\n")) {
    if (/^ *$/.test(line)) continue
    const match = KEY_LINE.exec(line)
    if (match === null) return undefined
    const key = match[1]!
    // A repeated key is an error in strict YAML and the last one in Claude Code's: the library says which.
    if (Object.hasOwn(CORE_WORDS, key) || Object.hasOwn(fields, key)) return undefined
    const text = match[2]
    let value: SimpleValue | typeof UNREAD
    if (text === undefined || text === "") value = null
    else if (text.charCodeAt(0) === 91) {
      value = limits.maxDepth < 2 ? UNREAD : flowList(text)
      if (value !== UNREAD) nodes += value.length
    } else value = scalar(text)
    if (value === UNREAD) return undefined
    fields[key] = value
    keys++
    if (++nodes > limits.maxNodes) return undefined
  }
  return keys === 0 ? undefined : fields
}
