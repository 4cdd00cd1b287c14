import { Effect } from "effect"
import * as NodeFs from "node:fs"
import { Root } from "../src/domain/inventory.js"
import { Walker } from "../src/services/Walker.js"
import { materializePathTree, scaledPathTree } from "./generators.js"
const n = Number(process.argv[2] ?? 10000)
const base = NodeFs.mkdtempSync("/tmp/scratch-walk-")
const laid = materializePathTree(base, scaledPathTree({ executables: n, dirs: 16, seed: 1 }))
const roots = laid.pathEntries.map((path, pathIndex) => new Root({ path, kind: "path", depth: "one-level", pathIndex }))
const walkOnce = Effect.flatMap(Walker, (w) => w.walk(roots, { os: "linux", pathExt: [], recursiveDepthCap: 3, cwd: "/" })).pipe(Effect.provide(Walker.layer))
for (let i = 0; i < 5; i++) { const t = performance.now(); await Effect.runPromise(walkOnce); console.log((performance.now() - t).toFixed(1)) }
NodeFs.rmSync(base, { recursive: true, force: true })
