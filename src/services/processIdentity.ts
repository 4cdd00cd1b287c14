import { Either } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"

/** A process's start time in clock ticks since boot (field 22 of `/proc/<pid>/stat`); null off Linux or when unreadable. */
export const processStartTicks = (pid: number): number | null => {
  const stat = Either.try(() => NodeFs.readFileSync(`/proc/${pid}/stat`, "latin1"))
  if (Either.isLeft(stat)) return null
  // The name (field 2) is in parentheses and may hold spaces or parentheses: count from its end.
  const fields = stat.right.slice(stat.right.lastIndexOf(")") + 2).split(" ")
  const ticks = Number(fields[19])
  return Number.isSafeInteger(ticks) ? ticks : null
}

/**
 * Where this process's pids mean something: the host name and, on Linux, the PID namespace
 * (`pid:[4026531836]`). A pid read from a lock written under another scope (another machine
 * sharing the directory, a container) says nothing about a process here.
 */
export const pidScope = (): string => {
  const namespace = Either.getOrElse(Either.try(() => NodeFs.readlinkSync("/proc/self/ns/pid")), () => "")
  return `${NodeOs.hostname()}/${namespace}`
}
