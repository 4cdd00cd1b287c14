import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeMemoryHost } from "../../../examples/minimal-host/host.js"
import { pluginLayer } from "../../../examples/minimal-host/plugin.js"
import type { Agent } from "../../../src/catalog/services/HostPort.js"
import { ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { ROUTER_FIXTURE } from "../core/routerFixture.js"

const main: Agent = { id: "main", sessionId: "s-main", provider: "test" }

const PEM = ["-----BEGIN OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", "-----END OPENSSH PRIVATE KEY-----"]

/** A SKILL.md that quotes every kind of secret the issue found in skills_route's answer (issue 27, point 3). */
const SKILL = [
  "---",
  "name: deploy-helper",
  "description: Deploy the service to production",
  "---",
  "Call the API with the header Authorization: Bearer sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0",
  "export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
  "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  "The key:",
  ...PEM,
  "Then run the deploy."
].join("\n")

describe("skills_route", () => {
  it.live("returns the SKILL.md with its secrets redacted, as skills_find shows descriptions", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const home = yield* fs.makeTempDirectoryScoped()
      const file = `${home}/.claude/skills/deploy-helper/SKILL.md`
      yield* fs.makeDirectory(`${home}/.claude/skills/deploy-helper`, { recursive: true })
      yield* fs.writeFileString(file, SKILL)
      const environment = MachineEnvironment.layerTest({ homedir: home, cwd: home, env: { PATH: "", XDG_DATA_HOME: `${home}/data` } })
      const host = yield* makeMemoryHost({ tools: ROUTER_FIXTURE })
      const answer = yield* Effect.gen(function*() {
        const catalog = yield* ToolCatalog
        yield* catalog.attach(main)
        return yield* catalog.callEntryTool(main, "skills_route", { query: "deploy the service to production" })
      }).pipe(Effect.scoped, Effect.provide(pluginLayer(host, { persist: false }).pipe(Layer.provide(environment))))
      expect(answer).toBe([
        `Best skill for "deploy the service to production": deploy-helper (claude-code), ${file}`,
        "Instructions:",
        "---",
        "name: deploy-helper",
        "description: Deploy the service to production",
        "---",
        "Call the API with the header Authorization: Bearer [redacted]",
        "export GITHUB_TOKEN=[redacted]",
        "AWS_SECRET_ACCESS_KEY=[redacted]",
        "The key:",
        "[redacted]",
        "Then run the deploy."
      ].join("\n"))
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({})))))
})
