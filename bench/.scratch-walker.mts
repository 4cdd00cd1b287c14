import { Effect } from "effect"
import * as NodeFs from "node:fs"
import { Root } from "../src/domain/inventory.js"
import { Walker, WalkerFs } from "../src/services/Walker.js"
import { makeNodeWalkerFs } from "../src/layers/WalkerFs.js"
import { materializePathTree, scaledPathTree } from "./generators.js"
const n = Number(process.argv[2] ?? 10000)
const base = NodeFs.mkdtempSync("/tmp/scratch-walk-")
const laid = materializePathTree(base, scaledPathTree({ executables: n, dirs: 16, seed: 1 }))
const roots = laid.pathEntries.map((path, pathIndex) => new Root({ path, kind: "path", depth: "one-level", pathIndex }))
const walkOnce = Effect.flatMap(Walker, (w) => w.walk(roots, { os: "linux", pathExt: [], recursiveDepthCap: 3, cwd: "/" })).pipe(Effect.provide(Walker.layer))
const fs = makeNodeWalkerFs()
const raw = async () => {
  for (const d of laid.pathEntries) {
    const es = await Effect.runPromise(fs.readDirectory(d))
    await Effect.runPromise(fs.inspectAll(es.map(e => ({ path: d + "/" + e.name, realpath: e.kind === "symlink" }))))
  }
}
const rawSync = () => { let c = 0; for (const d of laid.pathEntries) { for (const e of NodeFs.readdirSync(d, { withFileTypes: true })) { try { NodeFs.statSync(d + "/" + e.name); c++ } catch {} } } return c }
for (let i = 0; i < 3; i++) {
  let t = performance.now(); await Effect.runPromise(walkOnce); const w = performance.now() - t
  t = performance.now(); await raw(); const r = performance.now() - t
  t = performance.now(); rawSync(); const s = performance.now() - t
  console.log({ walk: w.toFixed(1), rawPort: r.toFixed(1), sync: s.toFixed(1) })
}
NodeFs.rmSync(base, { recursive: true, force: true })
