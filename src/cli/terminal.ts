import { Context } from "effect"

/** What the CLI needs to know of its terminal: whether stdout and stdin are terminals, and stdout's width. */
export interface TerminalFactsShape {
  readonly stdoutIsTty: boolean
  /** Columns of stdout when it is a terminal. */
  readonly columns: number | undefined
  readonly stdinIsTty: boolean
}

/** The process's terminal facts, read when first used; tests provide others. */
export class TerminalFacts extends Context.Reference<TerminalFacts>()("tool-map/TerminalFacts", {
  defaultValue: (): TerminalFactsShape => ({
    stdoutIsTty: process.stdout.isTTY === true,
    columns: process.stdout.isTTY === true ? process.stdout.columns : undefined,
    stdinIsTty: process.stdin.isTTY === true
  })
}) {}
