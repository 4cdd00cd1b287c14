import { Context, Layer } from "effect"
import * as NodeOs from "node:os"

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

/**
 * Injected so that every OS-specific rule (roots, PATHEXT, batch shims) can be tested on any
 * machine with the platform of another.
 */
export class MachineEnvironment extends Context.Tag("tool-map/MachineEnvironment")<
  MachineEnvironment,
  MachineEnvironmentShape
>() {
  static readonly live: MachineEnvironmentShape = {
    os: toOsFamily(process.platform),
    arch: process.arch,
    nodeVersion: process.version,
    execPath: process.execPath,
    env: process.env,
    homedir: NodeOs.homedir(),
    cwd: process.cwd()
  }
  static readonly layer = Layer.sync(this, () => MachineEnvironment.live)
  static readonly layerTest = (overrides: Partial<MachineEnvironmentShape>) =>
    Layer.succeed(this, { ...MachineEnvironment.live, env: {}, ...overrides })
}

/** The OS family of a platform name (`process.platform`, or the one a bundle recorded). */
export function toOsFamily(platform: string): OsFamily {
  return platform === "win32" ? "win32" : platform === "darwin" ? "darwin" : "linux"
}
