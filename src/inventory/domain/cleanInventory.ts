import { Schema } from "effect"
import { type AgentHostItem, AgentHostsInventory } from "./agentHosts.js"
import { Inventory, Tool, WatchSet } from "./inventory.js"
import { cleanerFor, cleanText } from "./untrusted.js"

/**
 * The boundary of the bundle: everything a scan read from the machine passes {@link cleanInventory}
 * before any renderer (`tools.json` included) sees it, and the renderers call it again on what
 * they are given (a no-op on a cleaned value).
 */

const cleanToolList = cleanerFor(Schema.Array(Tool))
const cleanHosts = cleanerFor(AgentHostsInventory)
const cleanWhole = cleanerFor(Inventory)

/** The tools with every untrusted string cleaned (a scan cleans them ahead, while the last probes run). */
export const cleanTools = (tools: ReadonlyArray<Tool>): ReadonlyArray<Tool> => cleanToolList(tools)

/**
 * Ids made unique again: two items whose ids differ only in a secret (`…/ghp_A.md`, `…/ghp_B.md`)
 * are one id once cleaned; the later ones get `~2`, `~3`, and `shadowedBy` follows its item.
 */
const uniqueIds = (raw: ReadonlyArray<AgentHostItem>, cleaned: ReadonlyArray<AgentHostItem>): ReadonlyArray<AgentHostItem> => {
  const seen = new Set<string>()
  let collided = false
  for (const item of cleaned) {
    if (seen.has(item.id)) collided = true
    seen.add(item.id)
  }
  if (!collided) return cleaned
  const taken = new Set<string>()
  const renamed = new Map<string, string>()
  cleaned.forEach((item, index) => {
    let id = item.id
    for (let count = 2; taken.has(id); count++) id = `${item.id}~${count}`
    taken.add(id)
    renamed.set(raw[index]!.id, id)
  })
  return cleaned.map((item, index) => {
    const shadowedBy = raw[index]!.shadowedBy
    const props = { ...item, id: renamed.get(raw[index]!.id)!, shadowedBy: shadowedBy === null ? null : renamed.get(shadowedBy) ?? cleanText(shadowedBy) }
    return Object.assign(Object.create(Object.getPrototypeOf(item) as object) as AgentHostItem, props)
  })
}

const withItems = (cleaned: AgentHostsInventory, items: ReadonlyArray<AgentHostItem>): AgentHostsInventory =>
  items === cleaned.items ? cleaned : new AgentHostsInventory({ ...cleaned, items }, true)

/** The agent-host part of an inventory, cleaned. */
export const cleanAgentHosts = (inventory: AgentHostsInventory): AgentHostsInventory => {
  const cleaned = cleanHosts(inventory)
  return cleaned === inventory ? cleaned : cleanHosts(withItems(cleaned, uniqueIds(inventory.items, cleaned.items)))
}

/**
 * An inventory with every string that came from the machine through the one rule (secrets
 * redacted, unsafe characters neutralized). A watched path that the rule would change is left
 * out of the watch set: recorded changed, it would look missing to every later `--if-stale`.
 */
export const cleanInventory = (inventory: Inventory): Inventory => {
  const cleaned = cleanWhole(inventory)
  if (cleaned === inventory) return cleaned
  const agentHosts = withItems(cleaned.agentHosts, uniqueIds(inventory.agentHosts.items, cleaned.agentHosts.items))
  const inputs = inventory.watch.inputs.filter((input) => cleanText(input.path) === input.path)
  if (agentHosts === cleaned.agentHosts && inputs.length === inventory.watch.inputs.length) return cleaned
  const watch = inputs.length === inventory.watch.inputs.length ? cleaned.watch : new WatchSet({ ...cleaned.watch, inputs }, true)
  return cleanWhole(new Inventory({ ...cleaned, agentHosts, watch }, true))
}
