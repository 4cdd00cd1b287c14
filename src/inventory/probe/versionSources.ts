import { FileSystem } from "@effect/platform"
import { Effect, Equivalence, Option } from "effect"
import type { ProbeSpec } from "../domain/probeTable.js"
import { type MachineEnvironmentShape, pathModule } from "../domain/machine.js"
import { looksSecret } from "../domain/secrets.js"
import { readRegularFile } from "../../services/fileRead.js"

// The version sources of the probe table (see `VersionSource`): files that state exactly what
// a program's `--version` prints. Every check is strict; anything unexpected is none, and
// VersionProbe runs the program as usual. Nothing here executes or evaluates what it reads.

/** A version read without running the program, and where it came from. */
export interface StatedVersion {
  readonly version: string
  readonly detail: string
}

/** The largest file a version source reads: a package.json or release file, a pyenv shim, hook or version file (npm's package.json is about 7 KB). */
const MAX_BYTES = 256 * 1024
/** Directories climbed from a script to its package.json (npm's bin is two levels down). */
const PACKAGE_SEARCH_LEVELS = 4
const SEMVER = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z][0-9A-Za-z.-]{0,39})?$/
/** JAVA_VERSION as the JDK writes it: `17.0.15`, `1.8.0_292`, `21-ea`. */
const JAVA_VERSION = /^JAVA_VERSION="(\d[0-9A-Za-z._+-]{0,39})"$/m

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The text of a regular file of at most MAX_BYTES, or none: the data files' bounded read
 * (`readRegularFile`: checked on the path, so a FIFO or a device is never opened, and on the
 * open descriptor, and read with a bound), a refused file as none.
 */
export const readSmallFile = (fs: FileSystem.FileSystem, file: string) =>
  readRegularFile(file, MAX_BYTES).pipe(
    Effect.map(Option.map((bytes) => new TextDecoder().decode(bytes))),
    Effect.catchTag("FileRefused", () => Effect.succeed(Option.none<string>())),
    Effect.provideService(FileSystem.FileSystem, fs)
  )

/** The file a package.json `bin` runs for `name`: a string bin is the unscoped package name's. */
const binEntry = (manifest: Readonly<Record<string, unknown>>, packageName: string, name: string): string | null => {
  const bin = manifest["bin"]
  if (typeof bin === "string") return packageName.replace(/^@[^/]+\//, "") === name ? bin : null
  if (!isRecord(bin) || !Object.hasOwn(bin, name)) return null
  const entry = bin[name]
  return typeof entry === "string" ? entry : null
}

/**
 * An npm package's Node script: the nearest package.json above the resolved file, within the
 * package (never above a `node_modules` dir), must name the package, declare a plain semver
 * version, and have its `bin` for this name lead to this very file. A shim of another package
 * (corepack's `pnpm`), an oversized file or bad JSON is none.
 */
const npmPackageVersion = (
  fs: FileSystem.FileSystem,
  host: MachineEnvironmentShape,
  spec: ProbeSpec,
  packageName: string,
  path: string
) =>
  Effect.gen(function*() {
    const pathApi = pathModule(host.os)
    const real = yield* fs.realPath(path)
    let dir = pathApi.dirname(real)
    for (let level = 0; level < PACKAGE_SEARCH_LEVELS; level++) {
      const file = pathApi.join(dir, "package.json")
      if (yield* fs.exists(file)) {
        const text = yield* readSmallFile(fs, file)
        if (Option.isNone(text)) return Option.none<StatedVersion>()
        const manifest = yield* Effect.try(() => JSON.parse(text.value) as unknown)
        if (!isRecord(manifest) || manifest["name"] !== packageName) return Option.none<StatedVersion>()
        const version = manifest["version"]
        const bin = binEntry(manifest, packageName, spec.name)
        if (typeof version !== "string" || !SEMVER.test(version) || bin === null) return Option.none<StatedVersion>()
        const binReal = yield* fs.realPath(pathApi.resolve(dir, bin))
        return binReal === real ? Option.some({ version, detail: `read from ${file}; not run` }) : Option.none<StatedVersion>()
      }
      const parent = pathApi.dirname(dir)
      if (pathApi.basename(dir) === "node_modules" || parent === dir) return Option.none<StatedVersion>()
      dir = parent
    }
    return Option.none<StatedVersion>()
  })

/**
 * The `java` launcher of a JDK or JRE image (`<image>/bin/java` once links are resolved): the
 * image's `release` file states JAVA_VERSION, the string `java -version` quotes.
 */
const jdkReleaseVersion = (fs: FileSystem.FileSystem, host: MachineEnvironmentShape, spec: ProbeSpec, path: string) =>
  Effect.gen(function*() {
    const pathApi = pathModule(host.os)
    const real = yield* fs.realPath(path)
    const launcher = host.os === "win32" ? "java.exe" : "java"
    const bin = pathApi.dirname(real)
    if (pathApi.basename(real).toLowerCase() !== launcher || pathApi.basename(bin) !== "bin") return Option.none<StatedVersion>()
    const file = pathApi.join(pathApi.dirname(bin), "release")
    const text = yield* readSmallFile(fs, file)
    const version = Option.flatMap(text, (content) => Option.fromNullable(JAVA_VERSION.exec(content)?.[1]))
    // The table's own pattern must read it as it reads `java -version`.
    return Option.filter(version, (found) => spec.parse.exec(`version "${found}"`)?.[1] === found).pipe(
      Option.map((found) => ({ version: found, detail: `read from ${file}; not run` }))
    )
  })

/** The very Node binary running tool-map (same device and inode): its own version. */
const runningNodeVersion = (fs: FileSystem.FileSystem, host: MachineEnvironmentShape, path: string) =>
  Effect.gen(function*() {
    const [file, running] = yield* Effect.all([fs.stat(path), fs.stat(host.execPath)])
    // Inodes of 64-bit file systems (Windows file ids) may be rounded in a JS number: the size
    // and modification time must match too.
    const same = Option.isSome(file.ino) && Option.isSome(running.ino) && file.ino.value !== 0 &&
      file.ino.value === running.ino.value && file.dev === running.dev && file.size === running.size &&
      Option.getEquivalence(Equivalence.Date)(file.mtime, running.mtime)
    const version = host.nodeVersion.replace(/^v/, "")
    return same && SEMVER.test(version)
      ? Option.some({ version, detail: "the Node that runs tool-map; not run" })
      : Option.none<StatedVersion>()
  })

/** The version the spec's source states for the file at `path`, or none (then run the probe). */
export const readVersionSource = (
  fs: FileSystem.FileSystem,
  host: MachineEnvironmentShape,
  spec: ProbeSpec,
  path: string
): Effect.Effect<Option.Option<StatedVersion>> => {
  const source = spec.versionSource
  if (source === null) return Effect.succeedNone
  const read = source.kind === "npm-package"
    ? npmPackageVersion(fs, host, spec, source.packageName, path)
    : source.kind === "jdk-release"
    ? jdkReleaseVersion(fs, host, spec, path)
    : runningNodeVersion(fs, host, path)
  return read.pipe(
    Effect.map(Option.filter((stated) => !looksSecret(stated.version))),
    Effect.orElseSucceed(() => Option.none<StatedVersion>())
  )
}
