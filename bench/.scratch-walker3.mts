import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import { Root } from "../src/domain/inventory.js"
import { Walker, WalkerFs } from "../src/services/Walker.js"
import { makeNodeWalkerFs } from "../src/layers/WalkerFs.js"
import { materializePathTree, scaledPathTree } from "./generators.js"
const n = Number(process.argv[2] ?? 10000)
const base = NodeFs.mkdtempSync("/tmp/scratch-walk-")
const laid = materializePathTree(base, scaledPathTree({ executables: n, dirs: 16, seed: 1 }))
const roots = laid.pathEntries.map((path, pathIndex) => new Root({ path, kind: "path", depth: "one-level", pathIndex }))
const mk = (strategy: "sync" | "async" | "auto") => Effect.flatMap(Walker, (w) => w.walk(roots, { os: "linux", pathExt: [], recursiveDepthCap: 3, cwd: "/" })).pipe(Effect.provide(Walker.layerWithoutFs.pipe(Layer.provide(Layer.succeed(WalkerFs, makeNodeWalkerFs({ strategy }))))))
const rawSync = () => { let c = 0; for (const d of laid.pathEntries) { for (const e of NodeFs.readdirSync(d, { withFileTypes: true })) { try { NodeFs.statSync(d + "/" + e.name); c++ } catch {} } } return c }
const port = makeNodeWalkerFs({ strategy: "sync" })
const rawPort = async () => {
  for (const d of laid.pathEntries) {
    const es = await Effect.runPromise(port.readDirectory(d))
    await Effect.runPromise(port.inspectAll(es.map(e => ({ path: d + "/" + e.name, realpath: e.kind === "symlink" }))))
  }
}
const times: Record<string, number[]> = { sync: [], async: [], auto: [], raw: [] }
for (let i = 0; i < 5; i++) {
  for (const s of ["sync", "auto"] as const) { const c = process.cpuUsage(); const w0 = performance.now(); await Effect.runPromise(mk(s)); const d = process.cpuUsage(c); times[s]!.push((d.user + d.system) / 1000); (times[s + "Wall"] ??= []).push(performance.now() - w0) }
  { const c = process.cpuUsage(); await rawPort(); const d = process.cpuUsage(c); (times.port ??= []).push((d.user + d.system) / 1000) }
  const c = process.cpuUsage(); rawSync(); const d = process.cpuUsage(c); times.raw!.push((d.user + d.system) / 1000)
}
const med = (a: number[]) => a.length === 0 ? "-" : [...a].sort((x, y) => x - y)[a.length >> 1]!.toFixed(1)
console.log(Object.fromEntries(Object.entries(times).map(([k, v]) => [k, med(v)])))
NodeFs.rmSync(base, { recursive: true, force: true })
