import type * as NodePath from "node:path"
import { redactSecrets } from "../../domain/secrets.js"
import { type FrontmatterFields, type FrontmatterValue, readToolList } from "../FrontmatterParser.js"

/** A description from frontmatter, else the first paragraph of the body; secrets redacted, capped. */
export const describe = (explicit: string | null, body: string | null): string | null => {
  // Redacting before the cap, so that a secret cut short by it is still recognized whole.
  const cap = (raw: string) => {
    const text = redactSecrets(raw)
    return text.length > 1024 ? `${text.slice(0, 1021)}...` : text
  }
  if (explicit !== null && explicit.trim().length > 0) return cap(explicit.trim())
  if (body === null) return null
  const paragraph = body
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .find((block) => block.length > 0 && !block.startsWith("```"))
  if (paragraph === undefined) return null
  return cap(paragraph.replace(/^#+\s*/, "").replace(/\s+/g, " "))
}

/** The file name without its extension. */
export const baseName = (path: NodePath.PlatformPath, file: string): string => {
  const name = path.basename(file)
  const dot = name.lastIndexOf(".")
  return dot > 0 ? name.slice(0, dot) : name
}

/** A frontmatter value that is a list of names, or a mapping whose keys are the names. */
export const namesOf = (value: FrontmatterValue | undefined): ReadonlyArray<string> | null => {
  if (value === undefined || value === null) return null
  if (typeof value === "string") return readToolListNames(value)
  if (Array.isArray(value)) {
    const names = (value as ReadonlyArray<FrontmatterValue>).flatMap((entry) =>
      typeof entry === "string" ? [entry] : entry !== null && typeof entry === "object" && !Array.isArray(entry) ? Object.keys(entry) : []
    )
    return names.length === 0 ? null : names
  }
  if (typeof value === "object") {
    const keys = Object.keys(value)
    return keys.length === 0 ? null : keys
  }
  return null
}

const readToolListNames = (text: string): ReadonlyArray<string> | null => {
  const read = readToolList(text)
  return read._tag === "list" && read.tools.length > 0 ? read.tools : null
}

/** A frontmatter field read: its value, or null with the problem a diagnostic reports (null when there is none). */
export interface FieldRead<A> {
  readonly value: A | null
  readonly problem: string | null
}

const found = <A>(value: A | null): FieldRead<A> => ({ value, problem: null })
const absent: FieldRead<never> = { value: null, problem: null }
const refused = <A>(problem: string): FieldRead<A> => ({ value: null, problem })

/** One field as a string (numbers and booleans as their text); any other type is a problem. */
export const stringField = (fields: FrontmatterFields, key: string): FieldRead<string> => {
  const value = fields[key]
  if (value === undefined || value === null) return absent
  if (typeof value === "string") return found(value)
  if (typeof value === "number" || typeof value === "boolean") return found(String(value))
  return refused(`field \`${key}\` is not a string; ignored`)
}

/** A tool-list field (the first of `keys` present); an invalid value is a problem and reads as absent. */
export const toolListField = (fields: FrontmatterFields, keys: ReadonlyArray<string>): FieldRead<ReadonlyArray<string>> => {
  for (const key of keys) {
    const read = readToolList(fields[key])
    if (read._tag === "list") return found(read.tools)
    if (read._tag === "invalid") return refused(`field \`${key}\` is ${read.reason}; treated as absent`)
  }
  return absent
}

/** A boolean field (`true`/`false`, also as strings). */
export const booleanField = (fields: FrontmatterFields, key: string): FieldRead<boolean> => {
  const value = fields[key]
  if (value === undefined || value === null) return absent
  if (typeof value === "boolean") return found(value)
  if (value === "true" || value === "false") return found(value === "true")
  return refused(`field \`${key}\` is not a boolean; ignored`)
}

/** A whole-number field (also from a numeric string). */
export const integerField = (fields: FrontmatterFields, key: string): FieldRead<number> => {
  const value = fields[key]
  if (value === undefined || value === null) return absent
  const number = typeof value === "number" ? value : typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN
  if (Number.isInteger(number) && number >= 0) return found(number)
  return refused(`field \`${key}\` is not a whole number; ignored`)
}
