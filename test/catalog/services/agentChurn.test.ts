import { describe, expect, it } from "vitest"
import { measureAgentChurn } from "../../../bench/agents.js"

// The figure of issue 9: before the sessions dropped everything on detach, the same churn grew
// the heap by about 350 MB (each agent's last build, schemas and definition hashes were kept).
describe("agent churn", () => {
  it("1,000 agents of 200 tools attached and detached leave nothing behind", async () => {
    const churn = await measureAgentChurn({ agents: 1_000, toolsPerAgent: 200 })
    expect(churn.sessions).toEqual({ agents: 0, memos: 0, waiting: 0 })
    expect(churn.storedAgents).toBe(0)
    expect(churn.heapGrowthMb).toBeLessThan(8)
  }, 180_000)
})
