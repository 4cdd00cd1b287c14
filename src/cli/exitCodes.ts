/** The exit codes of tool-map, documented in `--help`. */
export const ExitCode = {
  ok: 0,
  notFound: 1,
  usage: 2,
  cannotWrite: 3,
  cannotRead: 4,
  locked: 5,
  badInput: 6,
  /** `gateway setup`/`restore` refused: nothing to move, not set up, or no safe edit (nothing written). */
  refused: 7,
  internal: 70,
  /** Standard output could not be written (ENOSPC, EIO: `> /dev/full`); sysexits' EX_IOERR. A closed pipe (EPIPE) is no error. */
  outputFailed: 74,
  interrupted: 130
} as const

/** Exit code per typed error tag; a tag not listed is a usage error if it came from the CLI parser. */
export const EXIT_CODE_BY_TAG: Readonly<Record<string, number>> = {
  ToolNotFound: ExitCode.notFound,
  ConflictingFlags: ExitCode.usage,
  UnknownFlag: ExitCode.usage,
  UsageError: ExitCode.usage,
  DataDirInvalid: ExitCode.usage,
  RedirectPathInvalid: ExitCode.usage,
  BundleWriteError: ExitCode.cannotWrite,
  BundleReadError: ExitCode.cannotRead,
  BundleLocked: ExitCode.locked,
  SchemasFileInvalid: ExitCode.badInput,
  QueriesFileInvalid: ExitCode.badInput,
  ServersFileInvalid: ExitCode.badInput,
  NoToolSchemas: ExitCode.usage,
  CatalogUsageError: ExitCode.usage,
  CatalogPathNotFound: ExitCode.notFound,
  CatalogTargetNotFound: ExitCode.notFound,
  ApprovalCodeNotFound: ExitCode.notFound,
  NoHostSnapshots: ExitCode.notFound,
  ServersNotListed: ExitCode.notFound,
  HostServersUnreadable: ExitCode.cannotRead,
  CatalogFileError: ExitCode.cannotWrite,
  CatalogStateNotSaved: ExitCode.cannotWrite,
  HostHasNoServers: ExitCode.refused,
  ScopeNotOfHost: ExitCode.usage,
  GatewayNotSetUp: ExitCode.refused,
  HostConfigEditUnsafe: ExitCode.refused,
  HostConfigChanged: ExitCode.refused,
  HostConfigUnreadable: ExitCode.cannotRead,
  SetupRecordInvalid: ExitCode.badInput,
  GatewaySetupWriteFailed: ExitCode.cannotWrite,
  WordVectorSourceInvalid: ExitCode.badInput,
  WordVectorsUnreadable: ExitCode.cannotRead,
  WordVectorsNotWritten: ExitCode.cannotWrite
}

const tagOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string" ? error._tag : undefined

/** The errors that exit as the typed cause they carry, when they carry one (a read stopped by a lock exits 5). */
const EXITS_AS_CAUSE: ReadonlySet<string> = new Set(["BundleReadError"])

/** The exit code of a typed error: its cause's for one of {@link EXITS_AS_CAUSE} that carries a known one, else its tag's; 70 for an unknown tag. */
export const exitCodeOf = (error: unknown): number => {
  const tag = tagOf(error) ?? ""
  const cause = EXITS_AS_CAUSE.has(tag) && typeof error === "object" && error !== null && "cause" in error ? error.cause : undefined
  return EXIT_CODE_BY_TAG[tagOf(cause) ?? ""] ?? EXIT_CODE_BY_TAG[tag] ?? ExitCode.internal
}

/** What each exit code means, for `tool-map --help`. */
export const EXIT_CODE_MEANINGS: ReadonlyArray<readonly [number, string]> = [
  [ExitCode.ok, "success"],
  [ExitCode.notFound, "nothing found (query which, a catalog path or target, a tool snapshot of a host's servers), or a server catalog snapshot could not list"],
  [ExitCode.usage, "usage error (an unknown command or flag, a missing or bad value), or a data dir that would be relative"],
  [ExitCode.cannotWrite, "the bundle cannot be written (output dir not writable), or a catalog load/unload cannot be saved"],
  [ExitCode.cannotRead, "the bundle cannot be read (missing with --from, or corrupt), or a host's MCP config (catalog --host)"],
  [ExitCode.locked, "another scan holds the bundle's lock"],
  [ExitCode.badInput, "an input file is invalid (catalog --schemas, mcp --servers, a gateway setup's record)"],
  [ExitCode.refused, "gateway setup or restore refused: the host has no server to move, it is not set up, or its config cannot be edited safely (nothing written)"],
  [ExitCode.internal, "internal error"],
  [ExitCode.outputFailed, "standard output cannot be written (disk full, I/O error); a closed pipe is not an error"],
  [ExitCode.interrupted, "interrupted (SIGINT or SIGTERM; the bundle is left as it was)"]
]
