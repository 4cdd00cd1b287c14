/**
 * The edits of `tool-map gateway setup` and of a restore entry by entry, planned as pure
 * functions of the config's text: which servers move behind the gateway, which stay and why, the
 * file's new text and the servers the gateway fronts afterwards. Every planned text is parsed
 * back and must hold exactly what was meant (the rest of the file unchanged), else the plan is
 * refused: nothing is written on a guess.
 */
import { Either } from "effect"
import { asRecord, entryRunsToolMap, type McpDialect, normalizeMcpEntry } from "../../inventory/discover/agentHosts/index.js"
import { MCP_SERVER_NAME } from "../hostConfig.js"
import { canonical, editorFor } from "./configEdit.js"
import { HostConfigEditUnsafe, HostConfigUnreadable, HostHasNoServers } from "./errors.js"
import type { HostConfigTarget } from "./hostFiles.js"

/** What a server is, with no env or header value: names only, command, args and URL redacted. */
export interface ServerSummary {
  readonly name: string
  readonly transport: string
  /** The command and its arguments, or the URL, secrets redacted. */
  readonly runs: string
  readonly envNames: ReadonlyArray<string>
  readonly headerNames: ReadonlyArray<string>
  /** The host's allow list of the server's tools (Codex `enabled_tools`, Gemini `includeTools`), null when none. */
  readonly enabledTools: ReadonlyArray<string> | null
  /** The host's deny list (Codex `disabled_tools`, Gemini `excludeTools`). */
  readonly disabledTools: ReadonlyArray<string>
}

/** A server entry setup leaves where it is, and why. */
export interface KeptServer {
  readonly name: string
  readonly reason: string
}

/** What the tool-map entry of the config becomes. */
export type GatewayEntryChange = "added" | "replaced" | "unchanged"

/** The planned setup of one host config. */
export interface SetupPlan {
  readonly moved: ReadonlyArray<ServerSummary>
  readonly kept: ReadonlyArray<KeptServer>
  readonly gateway: GatewayEntryChange
  /** The config's text after setup. */
  readonly text: string
  /** Every server behind the gateway after setup, each entry as the host's config held it. */
  readonly servers: Readonly<Record<string, unknown>>
  /** Whether the config's text changes. */
  readonly changed: boolean
}

/** The planned restore of the moved entries into a config edited since setup. */
export interface EntryRestorePlan {
  readonly text: string
  /** The servers put back into the config. */
  readonly restored: ReadonlyArray<string>
  /** Servers behind the gateway whose name the config holds again: the config's entry is kept. */
  readonly conflicts: ReadonlyArray<string>
  /** Whether the gateway's tool-map entry was there to remove. */
  readonly gatewayRemoved: boolean
}

/** The input of a plan: the host's file, its text, and the servers behind the gateway already (an earlier setup). */
export interface PlanInput {
  readonly target: HostConfigTarget
  readonly path: string
  readonly text: string
  readonly behind: Readonly<Record<string, unknown>>
  /** Servers of the file the host does not load for a reason outside their entry (a settings list, a trust rule), with the reason. */
  readonly notLoaded?: ReadonlyMap<string, string>
}

/** The summary of one entry in the host's dialect. */
export const summarizeServer = (name: string, raw: unknown, target: HostConfigTarget): ServerSummary => {
  const fields = normalizeMcpEntry(raw, target.dialect)
  return {
    name,
    transport: fields.transport,
    runs: fields.url !== null && fields.command === null ? fields.url : [fields.command ?? "", ...fields.args].join(" "),
    envNames: fields.envVars,
    headerNames: fields.headerNames,
    enabledTools: fields.enabledTools,
    disabledTools: fields.disabledTools
  }
}

interface ParsedConfig {
  readonly root: Readonly<Record<string, unknown>>
  readonly map: Readonly<Record<string, unknown>>
}

const parseConfig = (input: Pick<PlanInput, "target" | "path" | "text">): Either.Either<ParsedConfig, HostConfigUnreadable | HostConfigEditUnsafe> =>
  Either.gen(function*() {
    const { target, path, text } = input
    const value = yield* Either.mapLeft(editorFor(target.format).parse(text), (reason) => new HostConfigUnreadable({ host: target.host, path, reason }))
    const root = asRecord(value)
    if (root === null) return yield* Either.left(new HostConfigUnreadable({ host: target.host, path, reason: "its top level is not an object" }))
    const mapValue = valueAt(root, target.mapPath)
    const map = mapValue === undefined ? {} : asRecord(mapValue)
    if (map === null) return yield* Either.left(new HostConfigEditUnsafe({ host: target.host, path, reason: `\`${target.mapPath.join(".")}\` is not an object` }))
    return { root, map }
  })

/** The value at `path` of a JSON value, undefined where a step is missing or not an object. */
const valueAt = (root: unknown, path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((value, key) => asRecord(value)?.[key], root)

/**
 * The root with the servers map at `path` replaced; an empty map counts as none (removing the last
 * table of TOML removes the map). Only the map's own key goes: the objects around it stay.
 */
const withMap = (root: Readonly<Record<string, unknown>>, path: ReadonlyArray<string>, map: Readonly<Record<string, unknown>> | undefined): Readonly<Record<string, unknown>> => {
  const [key, ...rest] = path
  if (key === undefined) return root
  if (rest.length > 0) return { ...root, [key]: withMap(asRecord(root[key]) ?? {}, rest, map) }
  const { [key]: _old, ...others } = root
  return map === undefined || Object.keys(map).length === 0 ? others : { ...others, [key]: map }
}

/** Parses the edited text back: it must be the original with exactly the planned servers map. */
const verified = (
  input: Pick<PlanInput, "target" | "path">,
  text: string,
  root: Readonly<Record<string, unknown>>,
  expectedMap: Readonly<Record<string, unknown>>
): Either.Either<string, HostConfigEditUnsafe> => {
  const { target, path } = input
  const unsafe = (reason: string) => new HostConfigEditUnsafe({ host: target.host, path, reason })
  return Either.flatMap(Either.mapLeft(editorFor(target.format).parse(text), (reason) => unsafe(`the edited file would not parse (${reason})`)), (parsed) => {
    const after = asRecord(parsed)
    const servers = asRecord(valueAt(after, target.mapPath))
    const same = after !== null && canonical(withMap(after, target.mapPath, servers ?? undefined)) === canonical(withMap(root, target.mapPath, expectedMap))
    return same ? Either.right(text) : Either.left(unsafe("the edited file would not hold exactly the servers meant, and the rest unchanged"))
  })
}

const numbersOf = (entries: ReadonlyArray<unknown>, key: string): ReadonlyArray<number> =>
  entries.flatMap((entry) => {
    const value = asRecord(entry)?.[key]
    return typeof value === "number" && Number.isFinite(value) && value > 0 ? [value] : []
  })

/**
 * The settings the gateway's entry takes over from the entries it fronts, in the host's own keys:
 * those that decide how the host treats the gateway's tools. A call through the gateway lasts as
 * long as the server's, so the longest tool timeout; a server the host must have makes the gateway
 * required; an approval mode or trust only where every entry has it (one entry's `trust: true`
 * would otherwise let every other server's tools run without asking). Start-up timeouts are not
 * taken: the gateway answers at once and starts a server on its first call.
 */
export const carriedSettings = (dialect: McpDialect, entries: ReadonlyArray<unknown>): Readonly<Record<string, unknown>> => {
  const longest = (key: string) => {
    const values = numbersOf(entries, key)
    return values.length === 0 ? {} : { [key]: Math.max(...values) }
  }
  const everyOne = (key: string) => {
    const values = entries.map((entry) => asRecord(entry)?.[key])
    const first = values[0]
    return values.length > 0 && first !== undefined && values.every((value) => value === first) ? { [key]: first } : {}
  }
  switch (dialect) {
    case "codex":
      return {
        ...(entries.some((entry) => asRecord(entry)?.["required"] === true) ? { required: true } : {}),
        ...longest("tool_timeout_sec"),
        ...everyOne("default_tools_approval_mode")
      }
    case "gemini":
      return { ...longest("timeout"), ...(entries.length > 0 && entries.every((entry) => asRecord(entry)?.["trust"] === true) ? { trust: true } : {}) }
    case "opencode":
      return longest("timeout")
    case "claude":
    case "cursor":
      return {}
  }
}

/**
 * The setup of one config: every server entry moves behind the gateway except an entry that
 * runs tool-map itself, one switched off in its own entry, and anything that is no server; the
 * `tool-map` entry starting `gatewayEntry` is added (or replaces a tool-map entry of that name).
 * With servers behind the gateway from an earlier setup (`behind`), new servers are merged in
 * (a name met again takes the config's entry) and nothing else changes.
 */
export const planSetup = (
  input: PlanInput,
  gatewayEntry: Readonly<Record<string, unknown>>
): Either.Either<SetupPlan, HostHasNoServers | HostConfigUnreadable | HostConfigEditUnsafe> =>
  Either.gen(function*() {
    const { target, path, text, behind } = input
    const { root, map } = yield* parseConfig(input)
    const moved: Array<string> = []
    const kept: Array<KeptServer> = []
    let gatewaySlot: unknown = undefined
    for (const [name, raw] of Object.entries(map)) {
      if (name === MCP_SERVER_NAME && entryRunsToolMap(raw, target.dialect)) gatewaySlot = raw
      else if (entryRunsToolMap(raw, target.dialect)) kept.push({ name, reason: "it runs tool-map: the gateway never fronts itself" })
      else if (asRecord(raw) === null) kept.push({ name, reason: "it is not a server entry" })
      else if (normalizeMcpEntry(raw, target.dialect).switchedOn === false) kept.push({ name, reason: "it is switched off in its entry (the host does not load it)" })
      else if (input.notLoaded?.has(name) === true) kept.push({ name, reason: `the host does not load it: ${input.notLoaded.get(name)}` })
      else moved.push(name)
    }
    if (moved.length === 0 && Object.keys(behind).length === 0) {
      return yield* Either.left(new HostHasNoServers({ host: target.host, scope: target.scope, path }))
    }
    const gateway: GatewayEntryChange = gatewaySlot === undefined ? "added" : canonical(gatewaySlot) === canonical(gatewayEntry) ? "unchanged" : "replaced"
    const servers = { ...behind, ...Object.fromEntries(moved.map((name) => [name, map[name]])) }
    const summaries = moved.map((name) => summarizeServer(name, map[name], target))
    if (moved.length === 0 && gateway === "unchanged") return { moved: summaries, kept, gateway, text, servers, changed: false }
    const editor = editorFor(target.format)
    const removed = gateway === "replaced" ? [...moved, MCP_SERVER_NAME] : moved
    const without = yield* Either.mapLeft(editor.remove(text, target.mapPath, removed), (reason) => new HostConfigEditUnsafe({ host: target.host, path, reason }))
    const edited = gateway === "unchanged" ? without : editor.add(without, target.mapPath, [[MCP_SERVER_NAME, gatewayEntry]], "first")
    const expected = {
      ...Object.fromEntries(Object.entries(map).filter(([name]) => !removed.includes(name))),
      ...(gateway === "unchanged" ? {} : { [MCP_SERVER_NAME]: gatewayEntry })
    }
    const checked = yield* verified(input, edited, root, expected)
    return { moved: summaries, kept, gateway, text: checked, servers, changed: checked !== text }
  })

/**
 * A restore that keeps every later edit of the config: the gateway's tool-map entry is removed
 * and each server behind the gateway is put back, unless the config holds a server of that
 * name again (the config's own entry wins and is reported).
 */
export const planEntryRestore = (input: PlanInput): Either.Either<EntryRestorePlan, HostConfigUnreadable | HostConfigEditUnsafe> =>
  Either.gen(function*() {
    const { target, path, text, behind } = input
    const { root, map } = yield* parseConfig(input)
    const gatewayRemoved = map[MCP_SERVER_NAME] !== undefined && entryRunsToolMap(map[MCP_SERVER_NAME], target.dialect)
    const remaining = Object.fromEntries(Object.entries(map).filter(([name]) => !(gatewayRemoved && name === MCP_SERVER_NAME)))
    const restored = Object.keys(behind).filter((name) => !Object.hasOwn(remaining, name))
    const conflicts = Object.keys(behind).filter((name) => Object.hasOwn(remaining, name))
    const editor = editorFor(target.format)
    const without = yield* Either.mapLeft(
      editor.remove(text, target.mapPath, gatewayRemoved ? [MCP_SERVER_NAME] : []),
      (reason) => new HostConfigEditUnsafe({ host: target.host, path, reason })
    )
    const edited = editor.add(without, target.mapPath, restored.map((name) => [name, behind[name]] as const), "last")
    const expected = { ...remaining, ...Object.fromEntries(restored.map((name) => [name, behind[name]])) }
    const checked = yield* verified(input, edited, root, expected)
    return { text: checked, restored, conflicts, gatewayRemoved }
  })
