/**
 * What a task wants done to its object — create, read, update, delete, search, run — read
 * from its verbs, and what a tool does, read from the verbs of its name and from its MCP
 * annotations (`readOnlyHint`, `destructiveHint`). A tool whose action is the task's ranks a
 * little higher ("delete the branch" prefers `delete_branch` to `create_branch`).
 */
import type { ToolAnnotations } from "../model.js"
import { words } from "./analyze.js"

/** One kind of action. */
export type Intent = "create" | "read" | "update" | "delete" | "search" | "run"

/** The bit of each intent in a mask. */
export const INTENT_BITS: Readonly<Record<Intent, number>> = { create: 1, read: 2, update: 4, delete: 8, search: 16, run: 32 }

/** Verbs (lowercase words, unstemmed) and the intent each states. */
export const INTENT_VERBS: ReadonlyMap<string, Intent> = new Map<string, Intent>([
  ...["create", "add", "new", "make", "generate", "write", "post", "insert", "open", "start", "upload", "push", "draw", "build", "fork", "send", "append", "register", "compose", "publish", "save"]
    .map((verb) => [verb, "create"] as const),
  ...["get", "read", "show", "view", "fetch", "list", "retrieve", "see", "display", "download", "load", "describe", "inspect", "info", "check", "status", "print", "export", "count", "look"]
    .map((verb) => [verb, "read"] as const),
  ...["update", "edit", "modify", "change", "set", "rename", "patch", "move", "replace", "merge", "rewrite", "fix", "toggle", "configure", "resize", "upgrade", "scale"]
    .map((verb) => [verb, "update"] as const),
  ...["delete", "remove", "drop", "erase", "destroy", "clear", "kill", "terminate", "uninstall", "purge", "wipe", "close", "stop", "cancel", "unsubscribe", "cleanup"]
    .map((verb) => [verb, "delete"] as const),
  ...["search", "find", "query", "lookup", "locate", "discover", "browse", "explore", "grep", "match"]
    .map((verb) => [verb, "search"] as const),
  ...["run", "execute", "exec", "eval", "evaluate", "invoke", "call", "trigger", "launch", "perform", "rerun", "apply", "install", "deploy"]
    .map((verb) => [verb, "run"] as const)
])

/** The intents a task's words state, as a mask. */
export const queryIntents = (text: string): number => {
  let mask = 0
  for (const word of words(text)) {
    const intent = INTENT_VERBS.get(word)
    if (intent !== undefined) mask |= INTENT_BITS[intent]
  }
  return mask
}

/**
 * The intents of a tool: the verbs in its name, and its annotations (a read-only tool reads or
 * searches; a destructive one deletes or overwrites). Annotations are the server's hints, but
 * a hint only adds an intent here: it can lift a tool a little, never hide one.
 */
export const toolIntents = (shortName: string, annotations: ToolAnnotations | undefined): number => {
  let mask = 0
  for (const word of words(shortName)) {
    const intent = INTENT_VERBS.get(word)
    if (intent !== undefined) mask |= INTENT_BITS[intent]
  }
  if (annotations?.readOnlyHint === true) mask |= INTENT_BITS.read | INTENT_BITS.search
  if (annotations?.destructiveHint === true) mask |= INTENT_BITS.delete | INTENT_BITS.update
  return mask
}
