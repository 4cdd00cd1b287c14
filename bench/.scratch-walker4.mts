import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import { Root } from "../src/domain/inventory.js"
import { Walker, WalkerFs } from "../src/services/Walker.js"
import { makeNodeWalkerFs } from "../src/layers/WalkerFs.js"
import { materializePathTree, scaledPathTree } from "./generators.js"
const base = process.argv[2]!
let laid
if (!NodeFs.existsSync(base + "/d0")) { NodeFs.mkdirSync(base, { recursive: true }); laid = materializePathTree(base, scaledPathTree({ executables: 10000, dirs: 16, seed: 1 })) }
const dirs = Array.from({ length: 16 }, (_, i) => `${base}/d${i}`)
const roots = dirs.map((path, pathIndex) => new Root({ path, kind: "path", depth: "one-level", pathIndex }))
const w = Effect.flatMap(Walker, (w) => w.walk(roots, { os: "linux", pathExt: [], recursiveDepthCap: 3, cwd: "/" })).pipe(Effect.provide(Walker.layerWithoutFs.pipe(Layer.provide(Layer.succeed(WalkerFs, makeNodeWalkerFs({ strategy: "sync" }))))))
if (process.argv[3] === "run") { const t = performance.now(); for (let i = 0; i < 30; i++) await Effect.runPromise(w); console.log("30 walks", performance.now() - t) }
