import { Command, Options } from "@effect/cli"
import { Clock, Console, Effect, Either, Option } from "effect"
import { formatTokens } from "../inventory/domain/tokens.js"
import { AGENT_HOST_TITLES, AGENT_HOSTS } from "../inventory/domain/agentHosts.js"
import { contextLedger, LEDGER_GROUPINGS, type LedgerGroupRow, type LedgerItemRow } from "../inventory/query/contextLedger.js"
import type { ChangedItem } from "../inventory/domain/drift.js"
import { type ChangesAnswer, changesSince } from "../inventory/query/changes.js"
import { InventoryReader } from "../inventory/query/InventoryReader.js"
import { printAnswerJson } from "./answerFreshness.js"
import { answersFromBundle, freshOption } from "./freshQueries.js"
import { fromOption, jsonOption } from "./options.js"
import { fittedTable, printLines, wrappedLines } from "./output.js"
import { typedWord, UsageError } from "./usage.js"

const tokens = (value: number | null): string => (value === null ? "unknown" : formatTokens(value))

/** `query context [--host H] [--by item|plugin|source|host]`: the always-on ledger of issue 14. */
export const queryContextCommand = Command.make(
  "context",
  {
    host: Options.choice("host", AGENT_HOSTS).pipe(Options.withDescription("Only this agent host."), Options.optional),
    by: Options.choice("by", LEDGER_GROUPINGS).pipe(
      Options.withDescription("One row per item (the default), or summed per plugin, per source (user, project, local, managed, plugin) or per host."),
      Options.withDefault("item" as const)
    ),
    json: jsonOption,
    from: fromOption,
    fresh: freshOption
  },
  (flags) =>
    Effect.gen(function* () {
      const inventory = yield* (yield* InventoryReader).load(flags.from)
      const ledger = contextLedger(inventory.agentHosts, { host: Option.getOrUndefined(flags.host), by: flags.by })
      if (flags.json) return yield* printAnswerJson(ledger)
      // On a terminal the table fits its width: the plugin gives way first, the name last.
      const table = yield* (ledger.by === "item"
        ? fittedTable(
            [...["always-on", "on-invoke", "host", "kind", "scope"], { title: "plugin", shrink: "text" as const }, { title: "name", shrink: "key" as const }],
            (ledger.rows as ReadonlyArray<LedgerItemRow>).map((row) => [
              tokens(row.alwaysOnTokens),
              tokens(row.onInvokeTokens),
              row.host,
              row.kind,
              row.scope,
              row.plugin ?? "",
              row.name
            ])
          )
        : fittedTable(
            // Grouped by host, the group is the host: one column of it. By plugin, what switching each off saves.
            [
              "always-on",
              ...(ledger.by === "plugin" ? ["saved if off"] : []),
              "on-invoke",
              "items",
              "unknown",
              "host",
              ...(ledger.by === "host" ? [] : [{ title: ledger.by, shrink: "key" as const }])
            ],
            (ledger.rows as ReadonlyArray<LedgerGroupRow>).map((row) => [
              formatTokens(row.alwaysOnTokens),
              ...(ledger.by === "plugin" ? [row.offSavesTokens === undefined ? "" : formatTokens(row.offSavesTokens)] : []),
              formatTokens(row.onInvokeTokens),
              String(row.items),
              String(row.unknown),
              row.host,
              ...(ledger.by === "host" ? [] : [row.group])
            ])
          ))
      const totals = ledger.totals.map((total) =>
        `${AGENT_HOST_TITLES[total.host]}: ${formatTokens(total.alwaysOnTokens)} in every session, ${formatTokens(total.onInvokeTokens)} more when all ${total.items} items are used${
          total.unknown === 0 ? "" : ` (${total.unknown} unknown: MCP servers without a tool snapshot yet (\`tool-map catalog snapshot --host ${total.host}\` takes one), or items of a bundle older than the ledger)`
        }`
      )
      if (ledger.totals.length === 0) return yield* printLines(["No agent-host item is loaded."])
      // The table's cells are neutralized by renderTable; the totals hold no untrusted text. On a
      // terminal they wrap to its width.
      const estimates = ledger.totals.map((total) => `${AGENT_HOST_TITLES[total.host]} figures: ${total.estimate}.`)
      yield* Console.log([table, "", ...(yield* wrappedLines([...totals, ...estimates]))].join("\n"))
    })
).pipe(Command.withDescription("What the agent hosts put into every session before you type (always-on) and what each item costs when used (on-invoke), largest first, with each host's totals."), answersFromBundle)

const itemLine = (mark: string, item: ChangedItem) => `  ${mark} ${item.host} ${item.kind} ${item.name} (${item.id})`

const mcpLine = (facts: { readonly command: string | null; readonly url: string | null; readonly envVars: ReadonlyArray<string> }) =>
  `${facts.command ?? facts.url ?? "(no command or url)"}${facts.envVars.length === 0 ? "" : ` [env: ${facts.envVars.join(", ")}]`}`

/** The lines of `query changes` without --json: which generation was compared with, then MCP servers, tools and the other items. */
const changeLines = (changes: ChangesAnswer): ReadonlyArray<string> => {
  const section = <A>(title: string, list: ReadonlyArray<A>, line: (entry: A) => string): ReadonlyArray<string> =>
    list.length === 0 ? [] : [`${title} (${list.length}):`, ...list.map(line)]
  const asked = changes.asked
  return [
    `${changes.count} ${changes.count === 1 ? "change" : "changes"} since generation ${changes.since.number} (${changes.since.committedAt}); now generation ${changes.current.number} (${changes.current.committedAt}).`,
    ...(asked === null
      ? []
      : [`Generation ${changes.since.number} is the newest kept at or before --since ${asked.since}${"at" in asked ? ` (${asked.at})` : ""}.`]),
    ...section("MCP servers added", changes.mcpServers.added, (item) => `${itemLine("+", item)}: ${mcpLine(item)}`),
    ...section("MCP servers changed", changes.mcpServers.changed, (item) => `${itemLine("~", item)}: ${item.fields.join(", ")}: ${mcpLine(item.before)} -> ${mcpLine(item.after)}`),
    ...section("MCP servers removed", changes.mcpServers.removed, (item) => itemLine("-", item)),
    ...section("Tools added", changes.tools.added, (tool) => `  + ${tool.name} ${tool.path}`),
    ...section("Tools removed", changes.tools.removed, (tool) => `  - ${tool.name} ${tool.path}`),
    ...section("Tools moved (another file wins)", changes.tools.moved, (tool) => `  ~ ${tool.name} ${tool.from} -> ${tool.to}`),
    ...section("Versions changed", changes.tools.versionChanged, (tool) => `  ~ ${tool.name} ${tool.from ?? "(none)"} -> ${tool.to ?? "(none)"}`),
    ...section("Agent-host items added", changes.items.added, (item) => itemLine("+", item)),
    ...section("Agent-host items removed", changes.items.removed, (item) => itemLine("-", item)),
    ...section("Now loaded", changes.items.enabled, (item) => itemLine("+", item)),
    ...section("No longer loaded", changes.items.disabled, (item) => itemLine("-", item)),
    ...section("Content changed", changes.items.contentChanged, (item) => itemLine("~", item))
  ]
}

/** `query changes [--since GENERATION|DURATION|DATE]`: what changed since a kept generation (issues 14, 29). */
export const queryChangesCommand = Command.make(
  "changes",
  {
    since: Options.text("since").pipe(
      Options.withDescription(
        "Compare with the newest kept generation at or before this point: a generation number (3), a duration back from now (30m, 12h, 1d, 2w), a date (2026-12-01, its local midnight), a time (2026-12-01T08:00, 2026-12-01T08:00:00Z) or a generation id. Without it: the last kept generation that differs from the bundle's."
      ),
      Options.optional
    ),
    json: jsonOption,
    from: fromOption,
    fresh: freshOption
  },
  (flags) =>
    Effect.gen(function* () {
      const { inventory, history } = yield* (yield* InventoryReader).loadWithHistory(flags.from)
      const since = Option.map(flags.since, (text) => ({ text, typed: typedWord(text) }))
      const answer = changesSince(inventory, history, since, new Date(yield* Clock.currentTimeMillis))
      if (Either.isLeft(answer)) {
        return yield* new UsageError({ command: "tool-map query changes", problem: answer.left.problem, choices: answer.left.choices, suggestion: null })
      }
      const changes = answer.right
      if (flags.json) return yield* printAnswerJson(changes)
      yield* printLines(changes.since === null ? [`No changes to show: ${changes.note}.`] : changeLines(changes))
    })
).pipe(Command.withDescription("What changed since an earlier scan (the last one that differs, or the one --since names): MCP servers added or changed first, then tools added, removed, moved or of another version, then agent-host items added, removed, enabled, disabled or edited."), answersFromBundle)

/** The ledger subcommands of `tool-map query` (issue 14). */
export const ledgerQueryCommands = [queryContextCommand, queryChangesCommand] as const
