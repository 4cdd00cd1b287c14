import { Options } from "@effect/cli"

/** `--json`: print only JSON on stdout. */
export const jsonOption = Options.boolean("json").pipe(
  Options.withDescription("Print one JSON value on stdout and nothing else.")
)

/** `--from FILE`: read a redirected bundle, named by any of its three files; never writes. */
export const fromOption = Options.file("from").pipe(
  Options.withDescription(
    "Read the bundle written by `tool-map scan PATH.md` instead of the default one, named by any of its files (PATH.md, PATH.json, PATH.summary.md). Only reads: a missing bundle is an error (exit 4)."
  ),
  Options.optional
)
