import { Context, Layer } from "effect"
import * as NodeOs from "node:os"
import { type MachineEnvironmentShape, toOsFamily } from "../inventory/domain/machine.js"

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
