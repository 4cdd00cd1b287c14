import type { OsFamily } from "./machine.js"

/** Characters no shell splits, expands or globs: a word made only of them needs no quotes. */
const PLAIN_POSIX = /^[A-Za-z0-9_@%+=:,./-]+$/
/** The same on Windows, where a backslash is a plain path separator. */
const PLAIN_WINDOWS = /^[A-Za-z0-9_@%+=:,./\\-]+$/

/**
 * `text` as one shell word, for a command tool-map prints for the user to paste (the summary's
 * refresh command, `tool-map mcp --print-config claude-code`): POSIX single quotes, inside which
 * nothing is expanded and a `'` is closed, escaped and reopened; cmd/PowerShell double quotes on
 * Windows. A word the shell would take as it is stays unquoted.
 */
export const shellQuote = (text: string, os: OsFamily): string => {
  if (os === "win32") return PLAIN_WINDOWS.test(text) ? text : `"${text.replace(/"/g, '""')}"`
  return PLAIN_POSIX.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`
}
