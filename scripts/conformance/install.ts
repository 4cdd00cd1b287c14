import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { HOSTS, type HostName, type HostPackage } from "./hosts.js"

/** `${XDG_CACHE_HOME:-~/.cache}/tool-map-conformance`: outside the repo, shared by every clone. */
export const cacheRoot = (env: NodeJS.ProcessEnv = process.env): string =>
  path.join(env["XDG_CACHE_HOME"] || path.join(os.homedir(), ".cache"), "tool-map-conformance")

/** Where one pinned package is installed: `<cache>/<pkg>@<version>`. */
export const installDir = (host: HostPackage, env: NodeJS.ProcessEnv = process.env): string =>
  path.join(cacheRoot(env), `${host.pkg}@${host.version}`)

/** Written last, so a directory without it is an interrupted install. */
const MARKER = ".tool-map-conformance-installed"

const binPath = (dir: string, host: HostPackage): string => path.join(dir, "node_modules", ".bin", host.bin)

const isInstalled = (dir: string, host: HostPackage): boolean => {
  try {
    return fs.readFileSync(path.join(dir, MARKER), "utf8") === `${host.pkg}@${host.version}\n` && fs.existsSync(binPath(dir, host))
  } catch {
    return false
  }
}

/**
 * Installs a pinned host CLI with `npm install --prefix` unless it is already there, and answers
 * the path of its executable. The install goes to a staging directory renamed into place when
 * whole, so an interrupted or concurrent run never leaves a half install that looks complete.
 */
export const ensureInstalled = (name: HostName, log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): string => {
  const host = HOSTS[name]
  const dir = installDir(host)
  if (isInstalled(dir, host)) return binPath(dir, host)
  const stage = `${dir}.partial-${process.pid}`
  fs.rmSync(stage, { recursive: true, force: true })
  fs.mkdirSync(stage, { recursive: true })
  log(`conformance: installing ${host.pkg}@${host.version} into ${dir}`)
  const npm = spawnSync(
    "npm",
    ["install", "--prefix", stage, "--no-audit", "--no-fund", "--no-save", "--loglevel=error", `${host.pkg}@${host.version}`],
    { stdio: ["ignore", "inherit", "inherit"] }
  )
  if (npm.status !== 0) {
    fs.rmSync(stage, { recursive: true, force: true })
    throw new Error(`npm install of ${host.pkg}@${host.version} failed (exit ${npm.status ?? npm.signal})`)
  }
  fs.writeFileSync(path.join(stage, MARKER), `${host.pkg}@${host.version}\n`)
  if (!isInstalled(dir, host)) fs.rmSync(dir, { recursive: true, force: true })
  try {
    fs.renameSync(stage, dir)
  } catch (error) {
    // Another run renamed its own whole install into place first: keep that one.
    fs.rmSync(stage, { recursive: true, force: true })
    if (!isInstalled(dir, host)) throw error
  }
  return binPath(dir, host)
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)
if (isMain) {
  const wanted = process.argv.slice(2)
  for (const name of Object.keys(HOSTS) as Array<HostName>) {
    if (wanted.length === 0 || wanted.includes(name)) process.stdout.write(`${name}\t${ensureInstalled(name)}\n`)
  }
}
