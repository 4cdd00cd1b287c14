/**
 * The gateway's entry (dist/tool-map.gateway.cjs) serves `skills_find` and `skills_route` from the
 * inventory, as the whole CLI does for the same flags (issue 27, point 12): before, the entry built
 * the gateway without an inventory and both answered "Skills and subagents cannot be searched".
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Deferred, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { serveGatewayLine } from "../../src/cli/gatewayMain.js"
import { PlatformLayer } from "../../src/layers/PlatformLayer.js"
import { MachineEnvironment } from "../../src/services/MachineEnvironment.js"
import { makeTempDir } from "../support/cli.js"

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

/** A home with one Claude Code skill, an empty PATH dir, a servers file with no server. */
const machine = (root: string) => {
  const home = path.join(root, "home")
  const bin = path.join(root, "bin")
  fs.mkdirSync(bin, { recursive: true })
  write(path.join(home, ".claude.json"), "{}")
  write(path.join(home, ".claude", "skills", "review-helper", "SKILL.md"), "---\nname: review-helper\ndescription: Helps review pull requests\n---\nRead the diff first.\n")
  const servers = path.join(root, "servers.json")
  write(servers, JSON.stringify({ mcpServers: {} }))
  const env = { HOME: home, PATH: bin, PLUGIN_DATA: path.join(root, "data"), LANG: "C.UTF-8" }
  return { home, servers, env }
}

const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content.map((part) => part.text).join("\n")

describe("the gateway's entry", () => {
  it.live("answers skills_find and skills_route from the inventory (an SDK client over HTTP)", () =>
    Effect.gen(function* () {
      const temp = yield* Effect.acquireRelease(Effect.sync(() => makeTempDir("tool-map-gateway-entry-")), (made) => Effect.sync(made.remove))
      const { home, servers, env } = machine(temp.dir)
      const announced = yield* Deferred.make<string>()
      const base = yield* Effect.console
      const console = { ...base, error: (...args: ReadonlyArray<unknown>) => Deferred.succeed(announced, args.join(" ")).pipe(Effect.asVoid) }
      yield* serveGatewayLine({ _tag: "Http", port: 0 }, { gateway: false, host: Option.none(), servers: Option.some(servers), agent: Option.some("skills") }).pipe(
        Effect.provide(Layer.merge(PlatformLayer, MachineEnvironment.layerTest({ env, homedir: home, cwd: home }))),
        Effect.withConsole(console),
        Effect.forkScoped
      )
      const url = new URL(/http:\/\/\S+/.exec(yield* Deferred.await(announced))![0])
      const client = new Client({ name: "skills-client", version: "1.0.0" })
      yield* Effect.acquireRelease(Effect.promise(() => client.connect(new StreamableHTTPClientTransport(url))), () => Effect.promise(() => client.close()))
      const found = textOf(yield* Effect.promise(() => client.callTool({ name: "skills_find", arguments: { query: "review pull requests" } })))
      const routed = textOf(yield* Effect.promise(() => client.callTool({ name: "skills_route", arguments: { query: "review pull requests" } })))
      const skill = path.join(home, ".claude", "skills", "review-helper", "SKILL.md")
      expect({ found, routed }).toEqual({
        found: [
          `1 for "review pull requests", best first (skills_route returns the best one's instructions):`,
          "  1.06  skill review-helper (claude-code)  Helps review pull requests",
          `        ${skill}`,
          "        why: name: review; description: review, pull, requests"
        ].join("\n"),
        routed: [
          `Best skill for "review pull requests": review-helper (claude-code), ${skill}`,
          "Instructions:",
          "---",
          "name: review-helper",
          "description: Helps review pull requests",
          "---",
          "Read the diff first."
        ].join("\n")
      })
    }).pipe(Effect.scoped))
})
