/**
 * High risk from evidence. The rule, first match decides:
 * 1. The operator lists the tool in the `highRisk` config: high risk, nothing lowers it.
 * 2. An annotation sets `highRisk` (the strongest layer that sets it: user, then runtime,
 *    then package): that value, true or false. This is how a user clears a false positive.
 * 3. Otherwise high risk when the MCP server says `destructiveHint: true`, or when a word of
 *    the tool's short name is a destructive verb (`DESTRUCTIVE_VERBS`).
 * MCP hints come from the server being judged, so they may only raise risk: a
 * `readOnlyHint: true` never lowers it (an untrusted server could otherwise wave its
 * `delete_repo` past the risk gate), and a missing or false `destructiveHint` proves nothing.
 *
 * `evidence` lists every fact found, in the order above, so a UI can show why.
 */
import type { AnnotationLayer, ToolAnnotations } from "./model.js"

/** Verbs that make a tool high risk when they are a word of its short name. */
export const DESTRUCTIVE_VERBS: ReadonlyArray<string> = [
  "delete",
  "del",
  "remove",
  "rm",
  "rmdir",
  "drop",
  "destroy",
  "purge",
  "wipe",
  "erase",
  "truncate",
  "kill",
  "terminate",
  "shutdown",
  "reboot",
  "exec",
  "execute",
  "eval",
  "shell",
  "write",
  "overwrite",
  "push",
  "deploy",
  "publish",
  "revoke",
  "uninstall",
  "reset"
]

const VERBS = new Set(DESTRUCTIVE_VERBS)

/** The lowercase words of a name: split at non-alphanumerics and camelCase humps. */
export const nameWords = (name: string): ReadonlyArray<string> =>
  // Without an uppercase letter or a character beyond ASCII (which lowercasing could turn
  // into ASCII letters), there is no hump to split and nothing to lowercase.
  (HUMP_OR_NON_ASCII.test(name) ? name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase() : name)
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0)

const HUMP_OR_NON_ASCII = /[A-Z\u0080-\uFFFF]/

// Most names hold no verb at all: one case-insensitive scan rules them out before any split.
const ANY_VERB = new RegExp(DESTRUCTIVE_VERBS.join("|"), "i")
const NO_VERBS: ReadonlyArray<string> = []

/** The destructive verbs among the words of a name, in name order. */
export const destructiveVerbsIn = (name: string): ReadonlyArray<string> => {
  if (!ANY_VERB.test(name)) return NO_VERBS
  const out: Array<string> = []
  for (const word of nameWords(name)) if (VERBS.has(word) && !out.includes(word)) out.push(word)
  return out
}

/** The facts a risk decision is made from. */
export interface RiskInput {
  /** The name whose words are checked (the short name: the server part says nothing). */
  readonly shortName: string
  /** Listed in the operator's `highRisk` config. */
  readonly listed: boolean
  /** An explicit `highRisk` from annotations, with the layer that set it. */
  readonly annotated?: { readonly value: boolean; readonly layer: AnnotationLayer } | undefined
  /** The tool's MCP annotations (untrusted). */
  readonly hints?: ToolAnnotations | undefined
}

/** A risk decision and the facts behind it. */
export interface RiskAssessment {
  readonly highRisk: boolean
  readonly evidence: ReadonlyArray<string>
}

/** Decides whether a tool is high risk (see the module comment for the rule). */
export const assessRisk = (input: RiskInput): RiskAssessment => {
  const evidence: Array<string> = []
  if (input.listed) evidence.push("listed in the highRisk config")
  if (input.annotated !== undefined) {
    evidence.push(`annotation (${input.annotated.layer}): highRisk=${input.annotated.value}`)
  }
  const destructiveHint = input.hints?.destructiveHint === true
  if (destructiveHint) evidence.push("MCP destructiveHint=true (untrusted hint)")
  const verbs = destructiveVerbsIn(input.shortName)
  for (const verb of verbs) evidence.push(`name has the verb "${verb}"`)
  const highRisk = input.listed || (input.annotated?.value ?? (destructiveHint || verbs.length > 0))
  if (highRisk && input.hints?.readOnlyHint === true) {
    evidence.push("MCP readOnlyHint=true ignored: an untrusted hint never lowers risk")
  }
  // Most tools have no evidence at all: they share one assessment.
  if (evidence.length === 0) return highRisk ? { highRisk, evidence: NO_EVIDENCE } : NO_RISK
  return { highRisk, evidence }
}

const NO_EVIDENCE: ReadonlyArray<string> = Object.freeze([])
const NO_RISK: RiskAssessment = Object.freeze({ highRisk: false, evidence: NO_EVIDENCE })
