import { Effect, Option } from "effect"
import { SCRIPT_EXTENSIONS } from "./markdownItems.js"
import type { HostReading } from "./hostReading.js"

/** True when the folder of a `SKILL.md` ships code: a `scripts/` folder or a script file beside it. */
export const skillHasScripts = (c: HostReading, skillFile: string): Effect.Effect<boolean> =>
  Effect.map(c.listNames(c.path.dirname(skillFile), null, true), (names) =>
    Option.getOrElse(names, () => []).some((entry) => entry === "scripts" || SCRIPT_EXTENSIONS.some((extension) => entry.toLowerCase().endsWith(extension)))
  )
