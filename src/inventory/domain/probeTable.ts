/** Which output stream carries a program's version: "either" reads stdout first, then stderr. */
export type ProbeStream = "stdout" | "stderr" | "either"

/** One allow-listed program: its exact argv after the program path, and how to read its version. */
export interface ProbeSpec {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly stream: ProbeStream
  /** Applied line by line; capture group 1 is the version. */
  readonly parse: RegExp
  /** Where the version can be read without running the program, when the file is what it claims. */
  readonly versionSource: VersionSource | null
}

/**
 * A file that states exactly what the program's `--version` prints, tried before spawning:
 * reading costs a few stats, starting a JVM or Node tens to hundreds of ms of CPU. Each is
 * checked strictly (see `VersionProbe`); anything unexpected falls back to running the probe.
 * - `npm-package`: the program is this npm package's `bin` script; its package.json `version`.
 * - `jdk-release`: the program is the `bin/java` of a JDK/JRE image; the image's `release` file.
 * - `running-node`: the program is the very Node binary running tool-map; its own version.
 */
export type VersionSource =
  | { readonly kind: "npm-package"; readonly packageName: string }
  | { readonly kind: "jdk-release" }
  | { readonly kind: "running-node" }

/**
 * A dotted number not glued to a word (`v20.1.0`, `git version 2.43.0`, `1.0.0-beta.2`), with
 * an optional pre-release/build suffix of bounded length. The leading `v` is not part of it.
 */
export const DEFAULT_VERSION_PATTERN = /(?<![\w.])v?(\d+(?:\.\d+)+(?:[-+][0-9A-Za-z][0-9A-Za-z.-]{0,39})?)/

const POWERSHELL_ARGS = ["-NoProfile", "-Command", "$PSVersionTable.PSVersion.ToString()"]

const spec = (
  name: string,
  args: ReadonlyArray<string> = ["--version"],
  stream: ProbeStream = "stdout",
  parse: RegExp = DEFAULT_VERSION_PATTERN,
  versionSource: VersionSource | null = null
): ProbeSpec => Object.freeze({ name, args: Object.freeze([...args]), stream, parse, versionSource })

const npmPackage = (packageName: string): VersionSource => ({ kind: "npm-package", packageName })

/**
 * The allowlist: the only programs a probe may run, with exactly these arguments. Nothing from
 * the user or the environment extends it (the table and its argument arrays are frozen).
 */
export const PROBE_TABLE: ReadonlyArray<ProbeSpec> = Object.freeze([
  // The seed's fifteen.
  spec("node", ["--version"], "stdout", DEFAULT_VERSION_PATTERN, { kind: "running-node" }),
  spec("npm", ["--version"], "stdout", DEFAULT_VERSION_PATTERN, npmPackage("npm")),
  // No version source for pnpm and yarn: in a project that pins another release (pnpm's
  // managePackageManagerVersions, yarn's yarnPath) `--version` prints that one, not theirs.
  spec("pnpm"),
  spec("yarn"),
  spec("mcode", ["--version"], "either"),
  spec("openclaw", ["--version"], "either"),
  spec("clawhub", ["--version"], "either"),
  spec("codex", ["--version"], "either"),
  spec("git"),
  // Python 2 printed `--version` on stderr.
  spec("python", ["--version"], "either"),
  spec("python3", ["--version"], "either"),
  spec("gh"),
  spec("docker"),
  spec("pwsh", POWERSHELL_ARGS),
  spec("powershell", POWERSHELL_ARGS),
  // Common CLIs beyond the seed.
  spec("bun"),
  spec("deno"),
  spec("cargo"),
  spec("rustc"),
  spec("go", ["version"], "stdout", /\bgo(\d+(?:\.\d+)+(?:(?:rc|beta)\d+)?)/),
  spec("java", ["-version"], "stderr", /version "([^"\s]{1,40})"/, { kind: "jdk-release" }),
  spec("uv"),
  spec("kubectl", ["version", "--client"]),
  spec("terraform", ["-version"]),
  spec("ruby"),
  spec("claude", ["--version"], "either", DEFAULT_VERSION_PATTERN, npmPackage("@anthropic-ai/claude-code")),
  spec("gemini", ["--version"], "either", DEFAULT_VERSION_PATTERN, npmPackage("@google/gemini-cli"))
])

const BY_NAME: ReadonlyMap<string, ProbeSpec> = new Map(PROBE_TABLE.map((entry) => [entry.name, entry]))

/** The allow-listed program names, in table order. */
export const probeNames = (): ReadonlyArray<string> => PROBE_TABLE.map((entry) => entry.name)

/** The table entry for exactly `name` (case-sensitive), or undefined when it is not allow-listed. */
export const findProbeSpec = (name: string): ProbeSpec | undefined => BY_NAME.get(name)

/** The version on the first line of `text` that holds one, by the spec's pattern; else null. */
export const versionInText = (parse: RegExp, text: string): string | null => {
  for (const line of text.split(/\r?\n|\r/)) {
    const found = parse.exec(line)?.[1]
    if (found !== undefined) return found
  }
  return null
}

/** The version from a probe's output, reading the stream(s) its spec names. */
export const parseVersion = (
  probe: ProbeSpec,
  output: { readonly stdout: string; readonly stderr: string }
): string | null => {
  switch (probe.stream) {
    case "stdout":
      return versionInText(probe.parse, output.stdout)
    case "stderr":
      return versionInText(probe.parse, output.stderr)
    case "either":
      return versionInText(probe.parse, output.stdout) ?? versionInText(probe.parse, output.stderr)
  }
}
