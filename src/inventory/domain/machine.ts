import * as NodePath from "node:path"

/** The operating systems whose rules tool-map knows. */
export type OsFamily = "linux" | "darwin" | "win32"

/** The facts of the process's surroundings: OS, environment variables, home and working dir. */
export interface MachineEnvironmentShape {
  readonly os: OsFamily
  readonly arch: string
  readonly nodeVersion: string
  /** The Node binary running tool-map. */
  readonly execPath: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly homedir: string
  readonly cwd: string
}

/** The OS family of a platform name (`process.platform`, or the one a bundle recorded). */
export const toOsFamily = (platform: string): OsFamily =>
  platform === "win32" ? "win32" : platform === "darwin" ? "darwin" : "linux"

/** The path module of the OS (Windows paths are handled with win32 rules on any machine). */
export const pathModule = (os: OsFamily): NodePath.PlatformPath =>
  os === "win32" ? NodePath.win32 : NodePath.posix

/** Reads an environment variable; on Windows names are case-insensitive (`Path`, `PATH`). */
export const envValue = (host: MachineEnvironmentShape, name: string): string | undefined => {
  const direct = host.env[name]
  if (direct !== undefined || host.os !== "win32") return direct
  const upper = name.toUpperCase()
  const key = Object.keys(host.env).find((candidate) => candidate.toUpperCase() === upper)
  return key === undefined ? undefined : host.env[key]
}
