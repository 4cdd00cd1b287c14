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
