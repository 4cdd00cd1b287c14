import type { AgentItemScope } from "../../domain/agentHosts.js"
import { REDACTED, redactArgv, redactSecrets } from "../../domain/secrets.js"
import { configHash, configOfEntry, launchEnvironment, type McpDialect } from "./mcpLaunch.js"
import type { ItemDraft } from "./precedence.js"
import { sha256 } from "./AgentHostFiles.js"
import { decodeMcpEntry, type McpEntryKeys, stringValues } from "./config/mcpEntry.js"
import type { HostReading } from "./hostReading.js"

export type { McpDialect } from "./mcpLaunch.js"

/** The disabled reason of a server its own entry switches off, in the words of each dialect. */
const SWITCHED_OFF: Readonly<Record<McpDialect, string>> = {
  claude: "disabled in its entry",
  cursor: "disabled in its entry",
  codex: "enabled = false",
  gemini: "disabled in its entry",
  opencode: "enabled: false"
}

/** The public fields of an MCP server entry: never an env or header value. */
export interface McpPublicFields {
  readonly transport: string
  readonly command: string | null
  readonly args: ReadonlyArray<string>
  readonly url: string | null
  readonly envVars: ReadonlyArray<string>
  readonly headerNames: ReadonlyArray<string>
  readonly enabledTools: ReadonlyArray<string> | null
  readonly disabledTools: ReadonlyArray<string>
  readonly trust: boolean | null
  /** The entry's own on/off switch (`enabled`, `disabled`), null when it has none. */
  readonly switchedOn: boolean | null
  /** SHA-256 of the public fields (changes when they do; a rotated secret does not show). */
  readonly sha256: string
  /**
   * Names the server needs from the environment the host gives it (issue 14, readiness):
   * `${NAME}` references without a default, Codex's `env_vars`, `bearer_token_env_var` and
   * `env_http_headers` names. Left out of the hash, which predates it.
   */
  readonly requiredEnvVars: ReadonlyArray<string>
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g

/** Names of the variables a string refers to with `${NAME}` or `${NAME:-default}`. */
const referencedNames = (text: string): ReadonlyArray<string> => Array.from(text.matchAll(REFERENCE), (match) => match[1]!)

/** Names a string refers to with `${NAME}` and no default: unset, the host cannot fill them in. */
const requiredNames = (text: string): ReadonlyArray<string> =>
  Array.from(text.matchAll(REFERENCE)).flatMap((match) => (match[0].includes(":-") ? [] : [match[1]!]))

/** An MCP server's arguments with their secrets redacted: the argument-vector rule of `domain/secrets.ts`. */
export const redactArgs = redactArgv

/** A URL without credentials and with every query value replaced. */
export const redactUrl = (raw: string): string => {
  // The text rule first: parsing percent-encodes blanks, which would hide `--token X` in a path.
  const text = redactSecrets(raw)
  const parsed = URL.canParse(text) ? new URL(text) : null
  if (parsed === null) return text.split("?")[0] ?? ""
  parsed.username = ""
  parsed.password = ""
  parsed.hash = ""
  const keys = Array.from(new Set(Array.from(parsed.searchParams.keys())))
  for (const key of keys) parsed.searchParams.set(key, REDACTED)
  return redactSecrets(parsed.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED))
}

const keysOf = (map: Readonly<Record<string, unknown>> | undefined): ReadonlyArray<string> => (map === undefined ? [] : Object.keys(map))

const sortedUnique = (names: ReadonlyArray<string>): ReadonlyArray<string> => Array.from(new Set(names)).sort()

/**
 * Normalizes one MCP server entry of any host's config. Values of `env`, `headers` and their
 * kin are looked at only for `${NAME}` references; none of them is kept.
 */
export const normalizeMcpEntry = (raw: unknown, dialect: McpDialect): McpPublicFields => {
  const entry: McpEntryKeys = decodeMcpEntry(raw, dialect).entry
  let command: string | null
  let args: ReadonlyArray<string>
  let url: string | null
  let transport: string
  let envNames: Array<string>
  let headerNames: Array<string>
  let valueTexts: Array<string>
  let enabledTools: ReadonlyArray<string> | null = null
  let disabledTools: ReadonlyArray<string> = []
  let trust: boolean | null = null
  let switchedOn: boolean | null = null
  const forwarded: Array<string> = []

  if (dialect === "opencode") {
    const commandList = typeof entry.command === "string" ? [] : entry.command ?? []
    command = commandList[0] ?? (typeof entry.command === "string" ? entry.command : null)
    args = commandList.slice(1)
    url = entry.url ?? null
    const type = entry.type ?? null
    transport = type === "local" ? "stdio" : type === "remote" ? "http" : command !== null ? "stdio" : url !== null ? "http" : "unknown"
    envNames = [...keysOf(entry.environment)]
    headerNames = [...keysOf(entry.headers)]
    valueTexts = [...stringValues(entry.environment), ...stringValues(entry.headers)]
    switchedOn = entry.enabled ?? null
  } else {
    command = typeof entry.command === "string" ? entry.command : null
    args = entry.args ?? []
    envNames = [...keysOf(entry.env)]
    valueTexts = [...stringValues(entry.env)]
    if (dialect === "gemini") {
      const httpUrl = entry.httpUrl ?? null
      url = httpUrl ?? entry.url ?? null
      transport = command !== null ? "stdio" : httpUrl !== null ? "http" : url !== null ? "sse" : "unknown"
      headerNames = [...keysOf(entry.headers)]
      valueTexts.push(...stringValues(entry.headers))
      enabledTools = entry.includeTools ?? null
      disabledTools = entry.excludeTools ?? []
      trust = entry.trust ?? null
    } else if (dialect === "codex") {
      url = entry.url ?? null
      transport = command !== null ? "stdio" : url !== null ? "http" : "unknown"
      envNames.push(...(entry.env_vars ?? []))
      forwarded.push(...(entry.env_vars ?? []), ...stringValues(entry.env_http_headers))
      const bearer = entry.bearer_token_env_var ?? null
      if (bearer !== null) forwarded.push(bearer)
      headerNames = [...keysOf(entry.http_headers), ...keysOf(entry.env_http_headers)]
      if (bearer !== null) {
        envNames.push(bearer)
        headerNames.push("Authorization")
      }
      // env_http_headers maps header names to the NAMES of env vars: those are names, not values.
      envNames.push(...stringValues(entry.env_http_headers))
      enabledTools = entry.enabled_tools ?? null
      disabledTools = entry.disabled_tools ?? []
      switchedOn = entry.enabled ?? null
    } else {
      url = entry.url ?? null
      const type = entry.type ?? null
      transport = type ?? (command !== null ? "stdio" : url !== null ? "http" : "unknown")
      headerNames = [...keysOf(entry.headers)]
      valueTexts.push(...stringValues(entry.headers))
      const disabled = entry.disabled ?? null
      switchedOn = disabled === null ? null : !disabled
    }
  }
  const referenced = [command ?? "", ...args, url ?? "", ...valueTexts].flatMap(referencedNames)
  // Redacted here already (the bundle's boundary cleans them again) so that the hash of an
  // entry never depends on a secret: a rotated token does not show as a change.
  const fields = {
    transport,
    command: command === null ? null : redactSecrets(command),
    args: redactArgv(args),
    url: url === null ? null : redactUrl(url),
    envVars: sortedUnique([...envNames, ...referenced]),
    headerNames: sortedUnique(headerNames),
    enabledTools,
    disabledTools,
    trust,
    switchedOn
  }
  const requiredEnvVars = sortedUnique([...forwarded, ...[command ?? "", ...args, url ?? "", ...valueTexts].flatMap(requiredNames)])
  return { ...fields, sha256: sha256(JSON.stringify(fields)), requiredEnvVars }
}

/** Looks like a server definition (for maps that may hold servers directly). */
export const looksLikeServer = (value: unknown): boolean =>
  typeof value === "object" && value !== null && !Array.isArray(value) && ["command", "url", "type", "httpUrl"].some((key) => Object.hasOwn(value, key))

/** One draft per server of a map; `namespace` "mcp" competes by name, "ignored" never does. */
export const mcpDrafts = (
  c: HostReading,
  servers: Readonly<Record<string, unknown>> | null,
  file: string,
  mtime: string | null,
  scope: AgentItemScope,
  placement: { readonly plugin: string | null; readonly enabled: boolean; readonly disabledReason: string | null; readonly rank: number },
  namespace: "mcp" | "ignored",
  dialect: McpDialect = "claude"
): ReadonlyArray<ItemDraft> => {
  if (servers === null) return []
  return Object.keys(servers).map((name) => {
    const fields = normalizeMcpEntry(servers[name], dialect)
    const offBySwitch = fields.switchedOn === false
    const enabled = placement.enabled && !offBySwitch
    return {
      fields: {
        kind: "mcpServer",
        host: c.host,
        scope,
        name,
        path: file,
        enabled,
        disabledReason: placement.enabled ? (offBySwitch ? SWITCHED_OFF[dialect] : null) : placement.disabledReason,
        sha256: fields.sha256,
        mtime,
        plugin: placement.plugin,
        transport: fields.transport,
        command: fields.command,
        args: fields.args,
        url: fields.url,
        envVars: fields.envVars,
        requiredEnvVars: fields.requiredEnvVars,
        headerNames: fields.headerNames,
        enabledTools: fields.enabledTools,
        disabledTools: fields.disabledTools,
        trust: fields.trust
      },
      entry: name,
      namespace: namespace === "mcp" ? `mcp:${name}` : null,
      rank: placement.rank,
      // Worked out only when a snapshots dir exists: it expands the entry with the environment.
      ...(namespace === "mcp"
        ? {
          snapshotKey: () => {
            const config = configOfEntry(name, servers[name], dialect, fields.transport, launchEnvironment(c.env.env, scope, file), c.env.cwd)
            return "_tag" in config ? configHash(config) : null
          }
        }
        : {})
    }
  })
}
