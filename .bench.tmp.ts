import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { claudeHome, writeTree } from "./bench/hostGenerators.js"
import { AgentHostScanner } from "./src/services/AgentHostScanner.js"
import { FrontmatterParser } from "./src/services/FrontmatterParser.js"
import { HostEnvironment } from "./src/services/HostEnvironment.js"
const n = Number(process.argv[2] ?? 3000)
await Effect.runPromise(Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const root = yield* fs.makeTempDirectoryScoped()
  let t = Date.now()
  yield* writeTree(root, claudeHome(n).tree)
  console.log("write", Date.now() - t)
  const layer = AgentHostScanner.layer.pipe(Layer.provide(Layer.mergeAll(NodeFileSystem.layer, HostEnvironment.layerTest({ homedir: root, cwd: root + "/proj", os: "linux" }), FrontmatterParser.layer)))
  for (let i = 0; i < 3; i++) {
    t = Date.now()
    const cpu = process.cpuUsage()
    const r = yield* Effect.flatMap(AgentHostScanner, (s) => s.scan).pipe(Effect.provide(layer))
    const used = process.cpuUsage(cpu)
    console.log("scan", Date.now() - t, "cpu", Math.round((used.user + used.system) / 1000), r.inventory.items.length)
  }
}).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer)))
