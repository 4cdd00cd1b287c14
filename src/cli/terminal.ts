import { Context } from "effect"

/** What the CLI needs to know of its terminal: whether stdout and stdin are terminals, and stdout's width. */
export interface TerminalFactsShape {
  readonly stdoutIsTty: boolean
  /** Columns of stdout when it is a terminal: `COLUMNS` when set to a whole number, else what the terminal says. */
  readonly columns: number | undefined
  readonly stdinIsTty: boolean
}

/**
 * The width to draw at on a terminal: `COLUMNS` (a positive whole number, as a shell or a user
 * sets it) over what the terminal reports; undefined for a pipe or a file, whose readers get the
 * whole text.
 */
export const terminalColumns = (stdoutIsTty: boolean, reported: number | undefined, columnsEnv: string | undefined): number | undefined => {
  if (!stdoutIsTty) return undefined
  const fromEnv = /^\s*\d+\s*$/.test(columnsEnv ?? "") ? Number(columnsEnv) : 0
  if (fromEnv > 0) return fromEnv
  return reported !== undefined && reported > 0 ? reported : undefined
}

/** The process's terminal facts, read when first used; tests provide others. */
export class TerminalFacts extends Context.Reference<TerminalFacts>()("tool-map/TerminalFacts", {
  defaultValue: (): TerminalFactsShape => ({
    stdoutIsTty: process.stdout.isTTY === true,
    columns: terminalColumns(process.stdout.isTTY === true, process.stdout.columns, process.env["COLUMNS"]),
    stdinIsTty: process.stdin.isTTY === true
  })
}) {}
