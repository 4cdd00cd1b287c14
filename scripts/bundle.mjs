// Bundles the CLI into one minified ES module: a single compiled file starts several times
// faster than hundreds of separately resolved modules (see bench/scan.ts).
import { build } from "esbuild"

await build({
  entryPoints: ["dist/bin.js"],
  outfile: "dist/tool-map.mjs",
  bundle: true,
  minify: true,
  platform: "node",
  target: "node20",
  format: "esm",
  mainFields: ["module", "main"],
  banner: { js: "import { createRequire as __toolMapRequire } from 'node:module'; const require = __toolMapRequire(import.meta.url);" },
  logLevel: "warning"
})
