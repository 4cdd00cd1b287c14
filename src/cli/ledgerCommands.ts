import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { formatTokens } from "../catalog/core/tokens.js"
import { AGENT_HOST_TITLES, AGENT_HOSTS } from "../inventory/domain/agentHosts.js"
import { contextLedger, LEDGER_GROUPINGS, type LedgerGroupRow, type LedgerItemRow } from "../inventory/query/contextLedger.js"
import { InventoryReader } from "../inventory/query/InventoryReader.js"
import { fromOption, jsonOption } from "./options.js"
import { printJson, printLines, renderTable } from "./output.js"

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
    from: fromOption
  },
  (flags) =>
    Effect.gen(function* () {
      const inventory = yield* (yield* InventoryReader).load(flags.from)
      const ledger = contextLedger(inventory.agentHosts, { host: Option.getOrUndefined(flags.host), by: flags.by })
      if (flags.json) return yield* printJson(ledger)
      const table = ledger.by === "item"
        ? renderTable(
            ["always-on", "on-invoke", "host", "kind", "scope", "plugin", "name"],
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
        : renderTable(
            ["always-on", "on-invoke", "items", "unknown", "host", ledger.by],
            (ledger.rows as ReadonlyArray<LedgerGroupRow>).map((row) => [
              formatTokens(row.alwaysOnTokens),
              formatTokens(row.onInvokeTokens),
              String(row.items),
              String(row.unknown),
              row.host,
              row.group
            ])
          )
      const totals = ledger.totals.map((total) =>
        `${AGENT_HOST_TITLES[total.host]}: ${formatTokens(total.alwaysOnTokens)} in every session, ${formatTokens(total.onInvokeTokens)} more when all ${total.items} items are used${
          total.unknown === 0 ? "" : ` (${total.unknown} unknown: MCP servers' tool schemas, or items of a bundle older than the ledger)`
        }`
      )
      if (ledger.totals.length === 0) return yield* printLines(["No agent-host item is loaded."])
      // The table's cells are neutralized by renderTable; the totals hold no untrusted text.
      yield* Console.log([table, "", ...totals, `Figures: ${ledger.estimate}.`].join("\n"))
    })
).pipe(Command.withDescription("What the agent hosts put into every session before you type (always-on) and what each item costs when used (on-invoke), largest first, with each host's totals."))

/** The ledger subcommands of `tool-map query` (issue 14). */
export const ledgerQueryCommands = [queryContextCommand] as const
