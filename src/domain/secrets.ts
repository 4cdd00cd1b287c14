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
    pattern: /\b([a-zA-Z][a-zA-Z0-9+.-]{0,30}:\/\/)[^\s/?#@:]+:[^\s/?#@]*@/,
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
  }
]

// `test` on a global regex is stateful (lastIndex), so detection and replacement use separate copies.
const GLOBAL_RULES = SECRET_RULES.map((rule) => ({
  pattern: new RegExp(rule.pattern.source, `${rule.pattern.flags}g`),
  replacement: rule.replacement
}))

/** True when `value` holds anything that looks like a token, key, PEM block, JWT or URL credential. */
export const looksSecret = (value: string): boolean => SECRET_RULES.some((rule) => rule.pattern.test(value))

/** `text` with every secret-looking substring replaced by `[redacted]` (a URL keeps its scheme and host). */
export const redactSecrets = (text: string): string =>
  GLOBAL_RULES.reduce((acc, rule) => acc.replace(rule.pattern, rule.replacement), text)
