/**
 * Runs `build` with V8's stack traces off, for errors made by the thousand from untrusted input
 * (a missed stat per PATH lookup, a YAML error per line of a hostile file): nobody reads their
 * traces, and capturing each one costs more than the work that found the error.
 */
export const withoutStackTraces = <A>(build: () => A): A => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return build()
  } finally {
    Error.stackTraceLimit = limit
  }
}
