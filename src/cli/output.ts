import { Console, Effect } from "effect"
import { displayWidth, truncateDisplay, wrapDisplay } from "../inventory/domain/displayWidth.js"
import { neutralizeLine } from "../inventory/render/text.js"
import { ExitCode } from "./exitCodes.js"
import { TerminalFacts } from "./terminal.js"

/** Prints a value as pretty JSON on stdout. */
export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/**
 * How a column gives way when its table is wider than the terminal: `text` columns
 * (descriptions, paths, commands, lists) first, down to {@link TEXT_MIN} display columns; then
 * the others, the widest first, `normal` ones down to {@link NORMAL_MIN} and the `key` (the name
 * a row is about) never below {@link KEY_MIN}. No column is cut below its title.
 */
export type Shrink = "text" | "normal" | "key"

/** A column of a text table: its title and how it gives way (a plain title: the first column is the key, the others normal). */
export interface Column {
  readonly title: string
  readonly shrink: Shrink
}

/** The narrowest a column of each kind is cut to (or its whole width, when narrower). */
export const TEXT_MIN = 12
export const NORMAL_MIN = 8
export const KEY_MIN = 16

const MINIMUM: Readonly<Record<Shrink, number>> = { text: TEXT_MIN, normal: NORMAL_MIN, key: KEY_MIN }
/** The kinds that give way together, stage by stage. */
const STAGES: ReadonlyArray<ReadonlyArray<Shrink>> = [["text"], ["normal", "key"]]
const GAP = 2

const columnOf = (header: string | Column, index: number): Column =>
  typeof header === "string" ? { title: header, shrink: index === 0 ? "key" : "normal" } : header

/**
 * Narrows the columns at `indexes` by up to `excess` display columns: the widest are cut to a
 * common level (never below their minimum), the leftmost of those cut keeping one more column
 * each while the level leaves some over. Returns what is still to take.
 */
const narrow = (widths: Array<number>, minimums: ReadonlyArray<number>, indexes: ReadonlyArray<number>, excess: number): number => {
  const natural = indexes.map((index) => widths[index]!)
  const at = (level: number) => indexes.reduce((sum, index, i) => sum + Math.max(minimums[index]!, Math.min(natural[i]!, level)), 0)
  const now = at(Infinity)
  const floor = at(0)
  if (now - floor <= excess) {
    indexes.forEach((index) => void (widths[index] = Math.min(widths[index]!, minimums[index]!)))
    return excess - (now - floor)
  }
  const target = now - excess
  let low = 0
  let high = Math.max(...natural)
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (at(middle) <= target) low = middle
    else high = middle - 1
  }
  let spare = target - at(low)
  indexes.forEach((index, i) => {
    const cut = Math.max(minimums[index]!, Math.min(natural[i]!, low))
    const grown = spare > 0 && cut < natural[i]! ? cut + 1 : cut
    spare -= grown - cut
    widths[index] = grown
  })
  return 0
}

/**
 * The width of each column when the table is drawn within `width` display columns: each column's
 * widest cell, narrowed stage by stage ({@link Shrink}) until the table fits or every column is at
 * its minimum (then the table stays wider than `width`: a name is not cut to nothing).
 */
export const fitColumns = (columns: ReadonlyArray<Column>, natural: ReadonlyArray<number>, width: number | undefined): ReadonlyArray<number> => {
  const widths = [...natural]
  if (width === undefined) return widths
  let excess = widths.reduce((sum, columnWidth) => sum + columnWidth, 0) + GAP * (widths.length - 1) - width
  const minimums = columns.map((column, index) => Math.min(natural[index]!, Math.max(displayWidth(column.title), MINIMUM[column.shrink])))
  for (const kinds of STAGES) {
    if (excess <= 0) break
    excess = narrow(widths, minimums, columns.flatMap((column, index) => (kinds.includes(column.shrink) ? [index] : [])), excess)
  }
  return widths
}

/** What a table shows within a width: the columns kept, their widths, and the columns with values that were left out. */
interface Layout {
  readonly shown: ReadonlyArray<number>
  readonly widths: ReadonlyArray<number>
  readonly leftOut: ReadonlyArray<number>
}

const total = (widths: ReadonlyArray<number>) => widths.reduce((sum, columnWidth) => sum + columnWidth, 0) + GAP * Math.max(0, widths.length - 1)

/**
 * Which columns a table shows within `width`, and how wide: all of them, whole, when they fit (or
 * no width is given). Otherwise a column empty in every row is left out, the rest narrowed by
 * {@link fitColumns}; while even their minimums do not fit, one more column is left out (the
 * rightmost `text` column, then the rightmost `normal` one; never the key) and the rest fitted again.
 */
const layoutOf = (columns: ReadonlyArray<Column>, natural: ReadonlyArray<number>, empty: ReadonlyArray<boolean>, width: number | undefined): Layout => {
  const all = columns.map((_, index) => index)
  if (width === undefined || total(natural) <= width) return { shown: all, widths: natural, leftOut: [] }
  let shown = all.filter((index) => !empty[index] || columns[index]!.shrink === "key")
  if (shown.length === 0) shown = all
  const leftOut: Array<number> = []
  for (;;) {
    const widths = fitColumns(shown.map((index) => columns[index]!), shown.map((index) => natural[index]!), width)
    const droppable = (["text", "normal"] as const).flatMap((shrink) => shown.filter((index) => columns[index]!.shrink === shrink).slice(-1))
    if (total(widths) <= width || droppable.length === 0 || shown.length === 1) return { shown, widths, leftOut }
    leftOut.push(droppable[0]!)
    leftOut.sort((a, b) => a - b)
    shown = shown.filter((index) => index !== droppable[0])
  }
}

/**
 * Renders rows as an aligned plain-text table (no colours, stable for tests). Cells hold untrusted
 * text (file names, versions, frontmatter, an MCP server's error): each is one line, its line
 * breaks shown as ` ⏎ ` and every other control character (ESC and tab included), line separator
 * and bidi control as U+FFFD (`neutralizeLine` of `render/text.ts`), so no cell can move the
 * cursor, recolour or clear the terminal, or break the table's lines. Columns are measured in
 * display columns (`displayWidth`: CJK and emoji 2, combining marks 0). Given a `width` (a
 * terminal's), the table is drawn within it ({@link fitColumns}): a longer cell is cut with `…`
 * between grapheme clusters, and when even the narrowest columns do not fit, whole columns are
 * left out and named in a last line. Without one, every cell is whole. `--json` output is never
 * touched.
 */
export const renderTable = (
  headers: ReadonlyArray<string | Column>,
  rawRows: ReadonlyArray<ReadonlyArray<string>>,
  width?: number | undefined
): string => {
  const columns = headers.map(columnOf)
  const titles = columns.map((column) => neutralizeLine(column.title))
  const rows = rawRows.map((row) => row.map(neutralizeLine))
  // Each cell measured once (a cell of CJK or emoji text is segmented into grapheme clusters).
  const titleWidths = titles.map(displayWidth)
  const cellWidths = rows.map((row) => titles.map((_, column) => displayWidth(row[column] ?? "")))
  const natural = titleWidths.map((title, column) => cellWidths.reduce((widest, row) => Math.max(widest, row[column]!), title))
  const empty = columns.map((_, column) => rows.length > 0 && rows.every((row) => (row[column] ?? "") === ""))
  const { leftOut, shown, widths } = layoutOf(columns, natural, empty, width)
  const line = (cells: ReadonlyArray<string>, measured: ReadonlyArray<number>) =>
    shown
      .map((column, index) => {
        const cell = cells[column] ?? ""
        const columnWidth = widths[index]!
        const fits = measured[column]! <= columnWidth
        const fitted = fits ? cell : truncateDisplay(cell, columnWidth)
        return index === shown.length - 1 ? fitted : `${fitted}${" ".repeat(columnWidth - (fits ? measured[column]! : displayWidth(fitted)))}`
      })
      .join(" ".repeat(GAP))
      .trimEnd()
  const dashes = titles.map((_, column) => "-".repeat(widths[shown.indexOf(column)] ?? 0))
  const note = leftOut.length === 0
    ? []
    : wrapDisplay(`(not shown at this width: ${leftOut.map((column) => titles[column]).join(", ")}; a pipe or --json has every column)`, width ?? Infinity)
  return [line(titles, titleWidths), line(dashes, dashes.map((dash) => dash.length)), ...rows.map((row, index) => line(row, cellWidths[index]!)), ...note].join("\n")
}

/** The width text is drawn at: the terminal's (`COLUMNS` honoured) when stdout is one; undefined in a pipe or a file, which get whole lines. */
export const outputWidth: Effect.Effect<number | undefined> = Effect.map(TerminalFacts, (terminal) =>
  terminal.stdoutIsTty ? terminal.columns : undefined)

/** {@link renderTable} drawn within the terminal's width ({@link outputWidth}). */
export const fittedTable = (headers: ReadonlyArray<string | Column>, rows: ReadonlyArray<ReadonlyArray<string>>) =>
  Effect.map(outputWidth, (width) => renderTable(headers, rows, width))

/** Prints lines of text that may hold untrusted names or paths, each kept on one line as table cells are. */
export const printLines = (lines: ReadonlyArray<string>) => Console.log(lines.map(neutralizeLine).join("\n"))

/** A line of prose within `width`: as it is when it fits, else wrapped at word boundaries, its later lines indented by two spaces. */
const wrapLine = (line: string, width: number): ReadonlyArray<string> =>
  displayWidth(line) <= width ? [line] : wrapDisplay(line, Math.max(1, width - 2)).map((part, index) => (index === 0 ? part : `  ${part}`))

/** Lines of prose (a table's footer) made to fit the terminal ({@link wrapLine}); in a pipe the lines are as given. */
export const wrappedLines = (lines: ReadonlyArray<string>) =>
  Effect.map(outputWidth, (width) => (width === undefined ? lines : lines.flatMap((line) => wrapLine(line, width))))

/**
 * Prints a listing already laid out as headings and indented rows whose last column is free text
 * (the catalog's listings). On a terminal a row wider than it is cut with `…`, and a heading (a
 * line that starts with no blank: a path with its legend, a sentence) is wrapped at word
 * boundaries; in a pipe every line is whole. Each line is kept on one line as table cells are.
 */
export const printFitted = (text: string) =>
  Effect.flatMap(outputWidth, (width) => {
    const lines = text.split("\n").map(neutralizeLine)
    return Console.log(
      (width === undefined ? lines : lines.flatMap((line) => (line.startsWith(" ") ? [truncateDisplay(line, width)] : wrapLine(line, width)))).join("\n")
    )
  })

/** Prints a table drawn within the terminal's width, or a one-line note when there are no rows. */
export const printTable = (
  headers: ReadonlyArray<string | Column>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  emptyNote: string
) => rows.length === 0 ? printLines([emptyNote]) : Effect.flatMap(fittedTable(headers, rows), (table) => Console.log(table))

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
