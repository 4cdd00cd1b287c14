// The README's first lines (issue 15, point 11): its two commands are the ones that work from a
// fresh clone, and the prerequisites it names are the ones the package and the tests have.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "../..")
const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8")
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  readonly bin: Readonly<Record<string, string>>
  readonly engines: Readonly<Record<string, string>>
  readonly scripts: Readonly<Record<string, string>>
}

/** Every test file, relative to the root. */
const testFiles = (): ReadonlyArray<string> =>
  fs.readdirSync(path.join(ROOT, "test"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => path.join("test", name))

describe("the README's first lines", () => {
  it("begin with the two commands: build and scan, and the whole test suite", () => {
    const block = /^# tool-map\n\n```sh\n([\s\S]*?)\n```\n/.exec(readme)
    expect(block?.[1]?.split("\n").map((line) => line.replace(/\s+#.*$/, ""))).toEqual([
      "npm ci && npm run build && node dist/tool-map.cjs scan",
      "npm ci && npm test"
    ])
    // What they run: the build writes the bin the first one starts; the test script builds, then tests.
    expect(pkg.bin["tool-map"]).toBe("./dist/tool-map.cjs")
    // dist is removed first: a file of a deleted source must not stay in dist and in the package.
    expect(pkg.scripts.build).toBe("node -e \"require('fs').rmSync('dist', { recursive: true, force: true })\" && tsc -p tsconfig.build.json && node scripts/bundle.mjs")
    expect(pkg.scripts.test).toBe("npm run typecheck && npm run lint:imports && npm run build && vitest run --project parallel && vitest run --project timed")
  })

  it("name the Node.js that package.json's engines ask for, and the one list of the commands the tests run", () => {
    expect(pkg.engines.node).toBe(">=20.19")
    expect(readme).toContain("Prerequisites: Node.js 20.19 or newer with npm")
    expect(readme).toContain("[`test/prerequisites.txt`](test/prerequisites.txt)")
    const listed = new Map(
      fs.readFileSync(path.join(ROOT, "test", "prerequisites.txt"), "utf8").split("\n")
        .filter((line) => line.trim() !== "" && !line.startsWith("#"))
        .map((line) => line.trim().split(/\s+/) as [string, string])
    )
    // Every command a test starts by name is in the list (node itself is process.execPath).
    const spawned = new Set(testFiles().flatMap((file) =>
      [...fs.readFileSync(path.join(ROOT, file), "utf8").matchAll(/(?:runProcess|spawnSync|execFileSync|execFile|spawn)\("([a-z][a-z0-9-]*)"/g)].map((match) => match[1]!)
    ))
    spawned.delete("npm")
    expect([...spawned].filter((command) => !listed.has(command))).toEqual([])
    expect(spawned.has("jq") && spawned.has("zsh") && spawned.has("fish") && spawned.has("tmux")).toBe(true)
    // .ci/run installs from the same list, and this machine has every command of it.
    expect(fs.readFileSync(path.join(ROOT, ".ci", "run"), "utf8")).toContain("test/prerequisites.txt")
    const missing = [...listed.keys()].filter((command) => spawnSync("sh", ["-c", `command -v ${command}`]).status !== 0)
    expect(missing).toEqual([])
  })
})
