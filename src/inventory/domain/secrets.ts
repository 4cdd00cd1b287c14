/**
 * What a secret looks like, as data: each rule is a pattern and what a match becomes. A rule
 * keeps the parts of its match that say where a secret was (a URL's scheme, a flag's name) and
 * drops only the value.
 */
interface SecretRule {
  readonly name: string
  readonly pattern: RegExp
  /** The replacement of one match (`groups` are the pattern's capture groups, `before` the text ahead of it). */
  readonly replace: (match: string, groups: ReadonlyArray<string | undefined>, before: string) => string
}

/** What a secret value is replaced by. */
export const REDACTED = "[redacted]"

// A name segment ending in one of these words names a secret (`DB_PASS`, `PGPASSWORD`, `api-key`).
const SECRET_WORD = "password|passwd|passphrase|pass|pwd|secret|token|apikey|key|auth|authorization|credentials?|session"
// The last segment decides for a flag, so `--api-key` is secret and `--token-file`, `--keyboard` are not;
// `--no-auth` is a switch, not a flag taking a value.
const SECRET_FLAG = `-{1,2}(?![-_]|no[-_])(?:[A-Za-z0-9]+[-_.]+)*[A-Za-z0-9]*(?:${SECRET_WORD})`
// Any segment decides for an assignment name (`AWS_SECRET_ACCESS_KEY`, `TOKEN_FILE`).
const SECRET_NAME = `_*(?:[A-Za-z0-9]+[-_.]+)*[A-Za-z0-9]*(?:${SECRET_WORD})(?:[-_.][-_.A-Za-z0-9]*)?`
// The name of a header or a `name: value` pair that holds a secret (`X-Auth-Key`, `Cookie`,
// `password`); a bare `key:` or `session:` is too common in prose to count.
const SECRET_LABEL = "(?:[A-Za-z0-9]+[-_.])*(?:password|passwd|passphrase|pwd|secret|token|api[-_]?key|[A-Za-z0-9]+-key|auth|authorization|cookie|credentials?)"
// A bare `${NAME}` or `$NAME` reference says where the secret comes from without being it.
// The authentication scheme before a credential (`Authorization: Bearer X`): it stays.
const SCHEME = "Bearer|Basic|Token|Digest"
const REFERENCE = `\\$\\{?[A-Za-z_][A-Za-z0-9_]*\\}?`
const NOT_A_REFERENCE = `(?!${REFERENCE}(?![^\\s"']))`
// A value already redacted is left as it is, so the rule can run twice over the same text.
const SECRET_VALUE = `${NOT_A_REFERENCE}(?!\\[redacted\\])(?:"[^"]*"|'[^']*'|[^\\s"']+)`
// A value that ends in a secret label (`--api-key=--header=X-Auth: X`) has its secret after the
// label: the value runs on through it, or the rule would keep the very secret the label names.
const LABELLED_VALUE = `(?:[^\\s"']*?(?:${SECRET_LABEL})[ \\t]*:[ \\t]+(?:(?:${SCHEME})[ \\t]+)?)?${SECRET_VALUE}`
const ONLY_A_REFERENCE = new RegExp(`^${REFERENCE}$`)

/** True when `value` is nothing but a `${NAME}` or `$NAME` reference (where a secret comes from, not the secret). */
export const isOnlyReference = (value: string): boolean => ONLY_A_REFERENCE.test(value)

/** How many more `(` than `)` `text` holds. */
const openParens = (text: string): number => {
  let open = 0
  for (const char of text) {
    if (char === "(") open++
    else if (char === ")" && open > 0) open--
  }
  return open
}

/**
 * `[redacted]` for `value`, with the closing parentheses (and the `,` or `;` after them) at its
 * end kept when they close one opened before it: `Bash(export TOKEN=X), Read` keeps `), `.
 */
const redactValue = (value: string, before: string): string => {
  const open = openParens(before)
  if (open === 0) return REDACTED
  const tail = /\)[),;]*$/.exec(value.slice(1))?.[0] ?? ""
  const closes = tail.split(")").length - 1
  return closes <= open ? `${REDACTED}${tail}` : REDACTED
}

const whole = (): string => REDACTED

const PEM_BEGIN = "-----BEGIN [A-Z0-9 ]{1,40}-----"
const PEM_END = "-----END [A-Z0-9 ]{1,40}-----"

// Lookbehinds keep a prefix from matching inside a word (`risk-free`, `task-runner-…`).
const SECRET_RULES: ReadonlyArray<SecretRule> = [
  {
    name: "pem-block",
    // An unterminated block (cut by an output cap) is redacted to the end of the text.
    pattern: new RegExp(`${PEM_BEGIN}(?:[\\s\\S]*?${PEM_END}|[\\s\\S]*$)`),
    replace: whole
  },
  {
    name: "url-credentials",
    // The user may be empty (`redis://:pw@host`); the password runs to the last `@` before the path,
    // since an unencoded `@` in it is common (`postgres://admin:p@ss@db`).
    pattern: /\b([a-zA-Z][a-zA-Z0-9+.-]{0,30}:\/\/)[^\s/?#@:]*:[^\s/?#]*@/,
    replace: (_match, [scheme]) => `${scheme}${REDACTED}@`
  },
  {
    name: "url-user",
    // A user alone is a token as often as a name (`https://TOKEN@github.com`); an ssh login is a name.
    pattern: /\b((?!(?:ssh|sftp|git\+ssh|ssh\+git):)[a-zA-Z][a-zA-Z0-9+.-]{0,30}:\/\/)[^\s/?#@:]+@/,
    replace: (_match, [scheme]) => `${scheme}${REDACTED}@`
  },
  { name: "github-token", pattern: /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{10,}/, replace: whole },
  { name: "github-pat", pattern: /(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{10,}/, replace: whole },
  { name: "openai-anthropic-key", pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{10,}/, replace: whole },
  { name: "stripe-key", pattern: /(?<![A-Za-z0-9])[rs]k_(?:live|test)_[A-Za-z0-9]{10,}/, replace: whole },
  { name: "slack-token", pattern: /(?<![A-Za-z0-9])xox[a-z]-[A-Za-z0-9-]{10,}/, replace: whole },
  { name: "npm-token", pattern: /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{20,}/, replace: whole },
  { name: "aws-access-key", pattern: /(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])/, replace: whole },
  { name: "gitlab-token", pattern: /(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{10,}/, replace: whole },
  { name: "google-api-key", pattern: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{30,}/, replace: whole },
  {
    name: "jwt",
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/,
    replace: whole
  },
  {
    name: "secret-default",
    // `${DB_PASSWORD:-X}`: the default of a secret-named variable is the secret itself.
    pattern: new RegExp(`\\$\\{(${SECRET_NAME})(:?[-=?+])[^}]*\\}`, "i"),
    replace: (_match, [name, operator]) => `\${${name}${operator}${REDACTED}}`
  },
  {
    name: "secret-flag-value",
    // The value after `=` or a blank; after a blank, a word starting with `-` is the next flag.
    pattern: new RegExp(`(?<![A-Za-z0-9_-])(${SECRET_FLAG})(=|[ \\t]+(?=[^\\s-]))(${LABELLED_VALUE})`, "i"),
    replace: (_match, [flag, separator, value], before) => `${flag}${separator}${redactValue(value ?? "", before)}`
  },
  {
    name: "secret-assignment",
    pattern: new RegExp(`(?<![A-Za-z0-9_.-])(${SECRET_NAME})=(${LABELLED_VALUE})`, "i"),
    replace: (_match, [name, value], before) => `${name}=${redactValue(value ?? "", before)}`
  },
  {
    name: "secret-config-line",
    // A line of a credentials or config file (`aws_secret_access_key = X`, `password = "X"`): the
    // blanks around `=` that prose would also have are taken at the start of a line only.
    pattern: new RegExp(`^([ \\t]*${SECRET_NAME})([ \\t]*=[ \\t]*)(?![=>])(${LABELLED_VALUE})`, "im"),
    replace: (_match, [name, separator, value], before) => `${name}${separator}${redactValue(value ?? "", before)}`
  },
  {
    name: "secret-label",
    // `Authorization: Bearer X`, `X-Auth-Key: X`, `"password": "X"`, `password:X`: the scheme word stays.
    // A value that opens an object or an array is structure (`"token":{"type":"string"}` in a
    // JSON schema), not a secret: its own members meet the rule.
    pattern: new RegExp(
      `(?<![A-Za-z0-9_{$-])(${SECRET_LABEL})(["']?[ \\t]*:(?![-=?+])[ \\t]*)(?:(${SCHEME})[ \\t]+|(?!(?:${SCHEME})[ \\t]))((?![{[])${SECRET_VALUE})`,
      "i"
    ),
    replace: (_match, [label, separator, scheme, value], before) =>
      `${label}${separator}${scheme === undefined ? "" : `${scheme} `}${redactValue(value ?? "", before)}`
  },
  {
    name: "bearer-credential",
    // A credential after its scheme word; prose (`Bearer authentication`) has no digit or capital in it.
    pattern: /\b([Bb]earer|[Bb]asic|BEARER|BASIC)[ \t]+(?=[A-Za-z0-9._~+/=-]*[0-9A-Z_~+/=])[A-Za-z0-9._~+/=-]{8,}/,
    replace: (_match, [scheme]) => `${scheme} ${REDACTED}`
  }
]

const PEM_BEGINS = new RegExp(PEM_BEGIN, "g")
const PEM_ENDS = new RegExp(PEM_END)

/**
 * The header line of a PEM block `text` opens and does not close (a chunk of a stream may end
 * inside one), else undefined. Put ahead of the stream's next text, it makes
 * {@link redactSecrets} take the rest of the block there too.
 */
export const unclosedPemHeader = (text: string): string | undefined => {
  let last: RegExpExecArray | undefined
  for (const match of text.matchAll(PEM_BEGINS)) last = match
  if (last === undefined) return undefined
  return PEM_ENDS.test(text.slice(last.index + last[0].length)) ? undefined : last[0]
}

// `test` on a global regex is stateful (lastIndex), so detection and replacement use separate copies.
const GLOBAL_RULES = SECRET_RULES.map((rule) => ({
  pattern: new RegExp(rule.pattern.source, `${rule.pattern.flags}g`),
  replace: rule.replace
}))

// Every rule needs one of these in the text: most strings (paths, names) pass no rule at all.
const MAY_HOLD_SECRET =
  /pass|pwd|secret|token|key|auth|credential|session|cookie|gh[pousr]_|github_pat_|sk-|k_live_|k_test_|xox|npm_|akia|asia|glpat-|aiza|eyj|-----begin|@|bearer|basic/i

const SECRET_FLAG_ALONE = new RegExp(`^${SECRET_FLAG}$`, "i")
const SECRET_NAME_ALONE = new RegExp(`^${SECRET_NAME}$`, "i")

/** True when `name`, a flag (`--api-key`, not `--token-file`) or a variable (`DB_PASS`), names a secret value. */
export const namesSecret = (name: string): boolean =>
  name.startsWith("-") ? SECRET_FLAG_ALONE.test(name) : SECRET_NAME_ALONE.test(name)

/**
 * True when `value` holds anything that looks like a token, key, PEM block, JWT, URL credential,
 * the value of a secret-named flag (`--api-key X`), assignment (`DB_PASS=X`), header or label
 * (`Authorization: Bearer X`, `password: X`), or the default of a secret-named variable.
 */
export const looksSecret = (value: string): boolean =>
  MAY_HOLD_SECRET.test(value) && SECRET_RULES.some((rule) => rule.pattern.test(value))

/**
 * `text` with every secret-looking value replaced by `[redacted]`; what says where it was stays
 * (a URL's scheme and host, a flag's, variable's or header's name, the text around it).
 */
export const redactSecrets = (text: string): string => {
  if (!MAY_HOLD_SECRET.test(text)) return text
  let out = text
  for (const rule of GLOBAL_RULES) {
    out = out.replace(rule.pattern, (...args: Array<unknown>) => {
      // (match, ...groups, offset, whole): no rule uses named groups.
      const match = args[0] as string
      const offset = args[args.length - 2] as number
      const whole = args[args.length - 1] as string
      const groups = args.slice(1, -2) as ReadonlyArray<string | undefined>
      return rule.replace(match, groups, whole.slice(0, offset))
    })
  }
  return out
}

// A flag after which the next argument is a script run by a shell or an interpreter: text, not one value.
const SCRIPT_FLAG = /^(?:-[A-Za-z]*c|\/[cC]|-[Cc]ommand|-e|--eval)$/
const WHOLE_ASSIGNMENT = /^(-{0,2}[A-Za-z0-9_.-]+)=(.+)$/s
const WHOLE_LABEL = new RegExp(`^(${SECRET_LABEL})([ \\t]*:[ \\t]*)(?:(${SCHEME})[ \\t]+)?(\\S.*)$`, "is")

/**
 * An argument vector with its secrets redacted: the argument after a secret-named flag
 * (`--api-key X`, two arguments), all of one argument's value after `--token=` or `API_KEY=`
 * (blanks and quotes included), all of a header argument's value, and the text rule in the
 * rest. A script after `sh -c` is text: only its values go.
 */
export const redactArgv = (args: ReadonlyArray<string>): ReadonlyArray<string> =>
  args.map((arg, index) => {
    const previous = index > 0 ? args[index - 1]! : ""
    if (previous.startsWith("-") && namesSecret(previous) && !arg.startsWith("-")) return REDACTED
    if (SCRIPT_FLAG.test(previous)) return redactSecrets(arg)
    const assignment = WHOLE_ASSIGNMENT.exec(arg)
    if (assignment !== null && namesSecret(assignment[1]!) && !isOnlyReference(assignment[2]!)) {
      return `${assignment[1]}=${REDACTED}`
    }
    const label = WHOLE_LABEL.exec(arg)
    if (label !== null && !isOnlyReference(label[4]!)) return `${label[1]}${label[2]}${label[3] === undefined ? "" : `${label[3]} `}${REDACTED}`
    return redactSecrets(arg)
  })
