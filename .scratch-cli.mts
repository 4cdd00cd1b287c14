import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import { catalogCommand } from "./src/cli/catalogCommands.js"
import { HostEnvironment } from "./src/services/HostEnvironment.js"
const dir = fs.mkdtempSync("/tmp/tm-cli-")
fs.writeFileSync(`${dir}/tools.json`, JSON.stringify({ tools: [
  { name: "bash", description: "Run a shell command.", inputSchema: { type: "object" } },
  { name: "mcp__github__create_issue", description: "Create an issue.", inputSchema: { type: "object" } },
  { name: "mcp__github__delete_repository", description: "Delete a repository.", inputSchema: { type: "object" } },
  { name: "mcp__slack__post_message", description: "Post a message.", inputSchema: { type: "object" } }
]}))
fs.writeFileSync(`${dir}/bad.json`, JSON.stringify([{ name: "x" }, { name: 5 }]))
const root = Command.make("tool-map").pipe(Command.withSubcommands([catalogCommand]))
const cli = Command.run(root, { name: "tool-map", version: "0" })
const run = (args: string[]) => cli(["node", "tool-map", "catalog", ...args]).pipe(
  Effect.catchAll((e) => Effect.sync(() => console.log("ERROR", (e as any)._tag, (e as any).message))),
  Effect.provide(Layer.mergeAll(NodeContext.layer, HostEnvironment.layerTest({ env: { PLUGIN_DATA: dir }, homedir: dir }))))
const main = Effect.gen(function*() {
  for (const args of [
    ["ls"],
    ["ls", "--schemas", `${dir}/tools.json`],
    ["ls", "/uncategorized/github"],
    ["ls", "--query", "issue", "--json"],
    ["load", "github", "nope"],
    ["load", "--json", "mcp__github__delete_repository"],
    ["ls", "github", "--json"],
    ["unload", "all"],
    ["diff"],
    ["ls", "/nope"],
    ["diff", "--schemas", `${dir}/bad.json`],
    ["--help"],
  ]) { console.log("$", args.join(" ")); yield* run(args) }
  console.log(fs.readdirSync(`${dir}/catalog`), fs.readdirSync(`${dir}/catalog/state`))
})
Effect.runPromise(main)
