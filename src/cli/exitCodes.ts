/** The exit codes of tool-map, documented in `--help`. */
export const ExitCode = {
  ok: 0,
  notFound: 1,
  usage: 2,
  cannotWrite: 3,
  cannotRead: 4,
  locked: 5,
  badInput: 6,
  internal: 70,
  interrupted: 130
} as const

/** Exit code per typed error tag; a tag not listed is a usage error if it came from the CLI parser. */
export const EXIT_CODE_BY_TAG: Readonly<Record<string, number>> = {
  ToolNotFound: ExitCode.notFound,
  ConflictingFlags: ExitCode.usage,
  UnknownFlag: ExitCode.usage,
  RedirectPathInvalid: ExitCode.usage,
  BundleWriteError: ExitCode.cannotWrite,
  BundleReadError: ExitCode.cannotRead,
  BundleLocked: ExitCode.locked,
  SchemasFileInvalid: ExitCode.badInput,
  NoToolSchemas: ExitCode.usage,
  CatalogUsageError: ExitCode.usage,
  CatalogPathNotFound: ExitCode.notFound,
  CatalogTargetNotFound: ExitCode.notFound,
  CatalogFileError: ExitCode.cannotWrite
}

export const EXIT_CODES_HELP = [
  "Exit codes: 0 success; 1 nothing found (query which, catalog path or target); 2 usage error (bad flag or argument);",
  "3 the bundle cannot be written (output dir not writable); 4 the bundle cannot be read (corrupt);",
  "5 another scan holds the bundle's lock; 6 an input file is invalid (catalog --schemas); 70 internal error;",
  "130 interrupted (SIGINT or SIGTERM; the bundle is left as it was)."
].join(" ")
