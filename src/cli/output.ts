import { Console, Effect } from "effect"
import { displayWidth, padEndDisplay } from "../inventory/domain/displayWidth.js"
import { neutralize } from "../inventory/render/text.js"
import { ExitCode } from "./exitCodes.js"

/** Prints a value as pretty JSON on stdout. */
export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/**
 * Renders rows as an aligned plain-text table (no colours, stable for tests). Cells hold untrusted
 * text (file names, versions, frontmatter): every control character (ESC, tab and newline
 * included), line separator and bidi control in a cell or header is shown as U+FFFD, as in the
 * markdown files (`neutralize` of `render/text.ts`), so no cell can move the cursor, recolour or
 * clear the terminal, or break the table's lines. Columns are measured in display columns
 * (`displayWidth`: CJK and emoji 2, combining marks 0). `--json` output is never touched.
 */
export const renderTable = (
  rawHeaders: ReadonlyArray<string>,
  rawRows: ReadonlyArray<ReadonlyArray<string>>
): string => {
  const headers = rawHeaders.map(neutralize)
  const rows = rawRows.map((row) => row.map(neutralize))
  const widths = headers.map((header, column) =>
    rows.reduce((width, row) => Math.max(width, displayWidth(row[column] ?? "")), displayWidth(header))
  )
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, column) => (column === cells.length - 1 ? cell : padEndDisplay(cell, widths[column] ?? 0))).join("  ").trimEnd()
  return [line(headers), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n")
}

/** Prints lines of text that may hold untrusted names or paths, neutralized as table cells are. */
export const printLines = (lines: ReadonlyArray<string>) => Console.log(lines.map(neutralize).join("\n"))

/** Prints a table, or a one-line note when there are no rows. */
export const printTable = (
  headers: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  emptyNote: string
) => rows.length === 0 ? printLines([emptyNote]) : Console.log(renderTable(headers, rows))

/** Prints either the JSON value or the table, by the `--json` flag. */
export const printResult = <A>(
  json: boolean,
  value: A,
  table: (value: A) => Effect.Effect<void>
) => (json ? printJson(value) : table(value))

/**
 * What a failed write to stdout means: EPIPE is the reader having gone away (`| head -1`), which
 * ends the run quietly with 0, as cat does; any other failure (ENOSPC on `> /dev/full`, EIO) lost
 * output, said on stderr with exit 74.
 */
export const stdoutWriteFailure = (error: { readonly code?: string | undefined; readonly message: string }): { readonly exitCode: number; readonly message: string | null } =>
  error.code === "EPIPE"
    ? { exitCode: ExitCode.ok, message: null }
    : { exitCode: ExitCode.outputFailed, message: `tool-map: cannot write to standard output (${error.code ?? "error"}): ${error.message}` }
