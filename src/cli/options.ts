import { Options } from "@effect/cli"

/** `--json`: print only JSON on stdout. */
export const jsonOption = Options.boolean("json").pipe(
  Options.withDescription("Print one JSON value on stdout and nothing else.")
)

/** `--from PATH`: read a redirected bundle (the `.md` path given to `scan`). */
export const fromOption = Options.file("from").pipe(
  Options.withDescription("Read the bundle written by `tool-map scan PATH.md` instead of the default one."),
  Options.optional
)
