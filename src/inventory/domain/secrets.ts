/**
 * What a secret looks like, as data: each rule is a pattern and the replacement of a match.
 * A rule that keeps part of its match (the scheme of a URL) says so with `$1`.
 */
interface SecretRule {
  readonly name: string
  readonly pattern: RegExp
  readonly replacement: string
}

const REDACTED = "[redacted]"

// A name segment ending in one of these words names a secret (`DB_PASS`, `PGPASSWORD`, `api-key`).
const SECRET_WORD = "password|passwd|passphrase|pass|pwd|secret|token|apikey|key|auth|authorization|credentials?|session"
// The last segment decides for a flag, so `--api-key` is secret and `--token-file`, `--keyboard` are not;
// `--no-auth` is a switch, not a flag taking a value.
const SECRET_FLAG = `-{1,2}(?![-_]|no[-_])(?:[A-Za-z0-9]+[-_.]+)*[A-Za-z0-9]*(?:${SECRET_WORD})`
// Any segment decides for an assignment name (`AWS_SECRET_ACCESS_KEY`, `TOKEN_FILE`).
const SECRET_NAME = `_*(?:[A-Za-z0-9]+[-_.]+)*[A-Za-z0-9]*(?:${SECRET_WORD})(?:[-_.][-_.A-Za-z0-9]*)?`
// A bare `${NAME}` or `$NAME` reference says where the secret comes from without being it.
const REFERENCE = `\\$\\{?[A-Za-z_][A-Za-z0-9_]*\\}?`
const NOT_A_REFERENCE = `(?!${REFERENCE}(?![^\\s"']))`
const SECRET_VALUE = `${NOT_A_REFERENCE}(?:"[^"]*"|'[^']*'|[^\\s"']+)`
const ONLY_A_REFERENCE = new RegExp(`^${REFERENCE}$`)

/** True when `value` is nothing but a `${NAME}` or `$NAME` reference (where a secret comes from, not the secret). */
export const isOnlyReference = (value: string): boolean => ONLY_A_REFERENCE.test(value)

// Lookbehinds keep a prefix from matching inside a word (`risk-free`, `task-runner-…`).
const SECRET_RULES: ReadonlyArray<SecretRule> = [
  {
    name: "pem-block",
    // An unterminated block (cut by an output cap) is redacted to the end of the text.
    pattern: /-----BEGIN [A-Z0-9 ]{1,40}-----(?:[\s\S]*?-----END [A-Z0-9 ]{1,40}-----|[\s\S]*$)/,
    replacement: REDACTED
  },
  {
    name: "url-credentials",
    // The user may be empty (`redis://:pw@host`); the password runs to the last `@` before the path,
    // since an unencoded `@` in it is common (`postgres://admin:p@ss@db`).
    pattern: /\b([a-zA-Z][a-zA-Z0-9+.-]{0,30}:\/\/)[^\s/?#@:]*:[^\s/?#]*@/,
    replacement: `$1${REDACTED}@`
  },
  { name: "github-token", pattern: /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{10,}/, replacement: REDACTED },
  { name: "github-pat", pattern: /(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{10,}/, replacement: REDACTED },
  { name: "openai-anthropic-key", pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{10,}/, replacement: REDACTED },
  { name: "stripe-key", pattern: /(?<![A-Za-z0-9])[rs]k_(?:live|test)_[A-Za-z0-9]{10,}/, replacement: REDACTED },
  { name: "slack-token", pattern: /(?<![A-Za-z0-9])xox[a-z]-[A-Za-z0-9-]{10,}/, replacement: REDACTED },
  { name: "npm-token", pattern: /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{20,}/, replacement: REDACTED },
  { name: "aws-access-key", pattern: /(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])/, replacement: REDACTED },
  { name: "gitlab-token", pattern: /(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{10,}/, replacement: REDACTED },
  { name: "google-api-key", pattern: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{30,}/, replacement: REDACTED },
  {
    name: "jwt",
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/,
    replacement: REDACTED
  },
  {
    name: "secret-flag-value",
    // The value after `=` or a blank; after a blank, a word starting with `-` is the next flag.
    pattern: new RegExp(`(?<![A-Za-z0-9_-])(${SECRET_FLAG})(=|[ \\t]+(?=[^\\s-]))${SECRET_VALUE}`, "i"),
    replacement: `$1$2${REDACTED}`
  },
  {
    name: "secret-assignment",
    pattern: new RegExp(`(?<![A-Za-z0-9_.-])(${SECRET_NAME})=${SECRET_VALUE}`, "i"),
    replacement: `$1=${REDACTED}`
  }
]

// `test` on a global regex is stateful (lastIndex), so detection and replacement use separate copies.
const GLOBAL_RULES = SECRET_RULES.map((rule) => ({
  pattern: new RegExp(rule.pattern.source, `${rule.pattern.flags}g`),
  replacement: rule.replacement
}))

const SECRET_FLAG_ALONE = new RegExp(`^${SECRET_FLAG}$`, "i")
const SECRET_NAME_ALONE = new RegExp(`^${SECRET_NAME}$`, "i")

/** True when `name`, a flag (`--api-key`, not `--token-file`) or a variable (`DB_PASS`), names a secret value. */
export const namesSecret = (name: string): boolean =>
  name.startsWith("-") ? SECRET_FLAG_ALONE.test(name) : SECRET_NAME_ALONE.test(name)

/**
 * True when `value` holds anything that looks like a token, key, PEM block, JWT, URL credential,
 * the value of a secret-named flag (`--api-key X`) or of a secret-named assignment (`DB_PASS=X`).
 */
export const looksSecret = (value: string): boolean => SECRET_RULES.some((rule) => rule.pattern.test(value))

/**
 * `text` with every secret-looking substring replaced by `[redacted]` (a URL keeps its scheme and
 * host, a flag or assignment its name).
 */
export const redactSecrets = (text: string): string =>
  GLOBAL_RULES.reduce((acc, rule) => acc.replace(rule.pattern, rule.replacement), text)
