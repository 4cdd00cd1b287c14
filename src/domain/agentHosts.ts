import { Schema } from "effect"

/** Agent-host inventory (SPEC section 4). Placeholder shape until the host readers land. */
export class AgentHostsInventory extends Schema.Class<AgentHostsInventory>("AgentHostsInventory")({
  hosts: Schema.Array(Schema.Unknown),
  items: Schema.Array(Schema.Unknown),
  diagnostics: Schema.Array(Schema.Unknown)
}) {
  static readonly empty = new AgentHostsInventory({ hosts: [], items: [], diagnostics: [] })
}
