import { Either } from "effect"

/**
 * The point `query changes --since` names (issue 29, point 4): a generation by its number or id,
 * or a moment, given as a duration back from now, a date or a time. Pure: the moment a duration
 * or a zone-less date means is computed from the `now` given (and the process's time zone).
 */
export type SincePoint =
  | { readonly _tag: "Generation"; readonly number: number }
  | { readonly _tag: "GenerationId"; readonly id: string }
  | { readonly _tag: "Moment"; readonly at: Date }

/** The forms `--since` accepts, as a usage error lists them. */
export const SINCE_FORMS: ReadonlyArray<string> = [
  "a generation number (3)",
  "a duration back from now (30m, 12h, 1d, 2w, 1d12h)",
  "a date (2026-12-01: its midnight, local time)",
  "a time (2026-12-01T08:00, local, or 2026-12-01T08:00:00Z)",
  "a generation id (20261201T080000Z-1a2b3c4d)"
]

const MINUTE = 60_000
const UNIT_MS = { w: 7 * 24 * 60 * MINUTE, d: 24 * 60 * MINUTE, h: 60 * MINUTE, m: MINUTE } as const

/** The generation ids a scan makes (`20261207T085014Z-1a2b3c4d`: its start time and a random tail). */
const GENERATION_ID = /^\d{8}T\d{6}Z-[0-9a-f]{8}$/
const GENERATION_NUMBER = /^[1-9]\d{0,14}$/
const DURATION = /^(?:(\d{1,6})w)?(?:(\d{1,6})d)?(?:(\d{1,6})h)?(?:(\d{1,9})m)?$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/** Whether the parts name a real calendar date and clock time (no 2026-02-30, no 24:00). */
const realDateTime = (year: number, month: number, day: number, hour: number, minute: number, second: number): boolean => {
  const check = new Date(Date.UTC(year, month - 1, day, hour, minute, second))
  return check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === day &&
    check.getUTCHours() === hour && check.getUTCMinutes() === minute && check.getUTCSeconds() === second
}

/** Minutes east of UTC a zone suffix names (`Z`, `+02:00`, `-0530`), or null when it is out of range. */
const zoneOffset = (zone: string): number | null => {
  if (zone === "Z") return 0
  const hours = Number(zone.slice(1, 3))
  const minutes = Number(zone.slice(-2))
  if (hours > 23 || minutes > 59) return null
  return (zone.startsWith("-") ? -1 : 1) * (hours * 60 + minutes)
}

const moment = (text: string): Date | null => {
  const match = DATE_TIME.exec(text)
  if (match === null) return null
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((index) => Number(match[index] ?? 0)) as [number, number, number, number, number, number]
  const millis = Number((match[7] ?? "0").padEnd(3, "0"))
  if (!realDateTime(year, month, day, hour, minute, second)) return null
  const zone = match[8]
  if (zone === undefined) return new Date(year, month - 1, day, hour, minute, second, millis)
  const offset = zoneOffset(zone)
  return offset === null ? null : new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset * MINUTE)
}

/**
 * The point a `--since` value names, or Left with why it names none (the caller adds
 * {@link SINCE_FORMS}). A duration is at least a minute; a time zone suffix is `Z` or `±HH:MM`.
 */
export const parseSince = (text: string, now: Date): Either.Either<SincePoint, string> => {
  const word = text.trim()
  if (GENERATION_NUMBER.test(word)) return Either.right({ _tag: "Generation", number: Number(word) })
  if (GENERATION_ID.test(word)) return Either.right({ _tag: "GenerationId", id: word })
  const duration = word === "" ? null : DURATION.exec(word)
  if (duration !== null) {
    const [w, d, h, m] = [1, 2, 3, 4].map((index) => Number(duration[index] ?? 0)) as [number, number, number, number]
    const ms = w * UNIT_MS.w + d * UNIT_MS.d + h * UNIT_MS.h + m * UNIT_MS.m
    return ms === 0 ? Either.left("a duration must be at least 1m") : Either.right({ _tag: "Moment", at: new Date(now.getTime() - ms) })
  }
  if (DATE_TIME.test(word)) {
    const at = moment(word)
    return at === null ? Either.left("no such date or time") : Either.right({ _tag: "Moment", at })
  }
  return Either.left("not a generation number, a duration, a date, a time or a generation id")
}
