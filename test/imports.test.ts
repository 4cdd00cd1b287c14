import { cruise } from "dependency-cruiser"
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options"
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config"
import { execFile } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const ROOT = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "..")
const scratch = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "tool-map-imports-"))
afterAll(() => NodeFs.rmSync(scratch, { recursive: true, force: true }))

/** A file to add (`create`) or a line to append to an existing source file (`append`). */
type Plant = { readonly append: string; readonly line: string } | { readonly create: string; readonly text: string }

/** A copy of `src/`, the checker's config and the package scripts, with `plants` applied. */
const copyWith = (name: string, plants: ReadonlyArray<Plant>): string => {
  const dir = NodePath.join(scratch, name)
  NodeFs.mkdirSync(dir)
  NodeFs.cpSync(NodePath.join(ROOT, "src"), NodePath.join(dir, "src"), { recursive: true })
  for (const file of [".dependency-cruiser.cjs", "tsconfig.json", "package.json"]) {
    NodeFs.copyFileSync(NodePath.join(ROOT, file), NodePath.join(dir, file))
  }
  NodeFs.symlinkSync(NodePath.join(ROOT, "node_modules"), NodePath.join(dir, "node_modules"), "dir")
  for (const plant of plants) {
    if ("append" in plant) {
      const file = NodePath.join(dir, plant.append)
      expect(NodeFs.existsSync(file)).toBe(true)
      NodeFs.appendFileSync(file, `\n${plant.line}\n`)
    } else {
      NodeFs.mkdirSync(NodePath.dirname(NodePath.join(dir, plant.create)), { recursive: true })
      NodeFs.writeFileSync(NodePath.join(dir, plant.create), plant.text)
    }
  }
  return dir
}

/** The violations printed by the checker's `err` output, and its summary line without the counts of the tree. */
const parseReport = (output: string) => {
  const lines = output.split("\n").map((line) => line.trim()).filter((line) => line !== "")
  return {
    violations: lines.filter((line) => !/^(x|✔) /.test(line)),
    summary: (lines.find((line) => /^(x|✔) /.test(line)) ?? "").replace(/ \(?\d+ modules, \d+ dependencies cruised\)?\.?$/, "")
  }
}

/** `npm run lint:imports` in `dir`, exactly as `npm test` runs it: its exit code and report. */
const lintImports = (dir: string) =>
  new Promise<{ readonly status: number; readonly violations: ReadonlyArray<string>; readonly summary: string }>((resolve) => {
    execFile("npm", ["run", "--silent", "lint:imports"], { cwd: dir, encoding: "utf8" }, (error, stdout) => {
      resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : -1, ...parseReport(stdout) })
    })
  })

/**
 * The same check through dependency-cruiser's API, in this process: the script's config on the
 * script's `src`, without a process and a TypeScript load per case. The exit code is the CLI's
 * (the number of errors).
 */
const cruiseCopy = async (dir: string) => {
  const options = await extractDepcruiseOptions(NodePath.join(dir, ".dependency-cruiser.cjs"))
  const tsConfig = extractTSConfig(NodePath.join(dir, "tsconfig.json"))
  const result = await cruise(["src"], { ...options, baseDir: dir, outputType: "err" }, {}, { tsConfig })
  return { status: result.exitCode, ...parseReport(typeof result.output === "string" ? result.output : "") }
}

const leaf = (create: string): Plant => ({ create, text: "export const planted = 1\n" })

const TIMEOUT = 120_000

describe("npm run lint:imports (part of npm test)", () => {
  it("runs in the test command, on src only", () => {
    const scripts = JSON.parse(NodeFs.readFileSync(NodePath.join(ROOT, "package.json"), "utf8")).scripts
    expect(scripts["lint:imports"]).toBe("depcruise src --config .dependency-cruiser.cjs")
    expect(scripts.test).toBe("npm run typecheck && npm run lint:imports && npm run build && vitest run --project parallel && vitest run --project timed")
  })

  it.concurrent("passes on the unmodified source", async () => {
    const result = await lintImports(copyWith("clean", []))
    expect(result).toEqual({ status: 0, violations: [], summary: "✔ no dependency violations found" })
  }, TIMEOUT)

  it.concurrent("fails on a domain file importing a service, naming the rule", async () => {
    const result = await lintImports(
      copyWith("cli-domain", [{ append: "src/inventory/domain/roots.ts", line: `import "../../services/fileRead.js"` }])
    )
    expect(result).toEqual({
      status: 2,
      violations: [
        "error pure-imports-only-pure: src/inventory/domain/roots.ts → src/services/fileRead.ts",
        "error floor-inventory/domain: src/inventory/domain/roots.ts → src/services/fileRead.ts"
      ],
      summary: "x 2 dependency violations (2 errors, 0 warnings)."
    })
  }, TIMEOUT)

  const cases: ReadonlyArray<{ readonly title: string; readonly plants: ReadonlyArray<Plant>; readonly violations: ReadonlyArray<string> }> = [
    {
      title: "a domain file importing a service's types",
      plants: [{ append: "src/inventory/domain/secrets.ts", line: `import type { MachineEnvironment } from "../../services/MachineEnvironment.js"` }],
      violations: [
        "error pure-imports-only-pure: src/inventory/domain/secrets.ts → src/services/MachineEnvironment.ts",
        "error floor-inventory/domain: src/inventory/domain/secrets.ts → src/services/MachineEnvironment.ts"
      ]
    },
    {
      title: "a catalog core file importing a store",
      plants: [leaf("src/catalog/stores/Planted.ts"), { append: "src/catalog/core/risk.ts", line: `import "../stores/Planted.js"` }],
      violations: [
        "error pure-imports-only-pure: src/catalog/core/risk.ts → src/catalog/stores/Planted.ts",
        "error floor-catalog/core: src/catalog/core/risk.ts → src/catalog/stores/Planted.ts"
      ]
    },
    {
      title: "a core file importing the CLI",
      plants: [leaf("src/cli/planted.ts"), { append: "src/catalog/core/risk.ts", line: `import { planted } from "../../cli/planted.js"` }],
      violations: [
        "error pure-imports-only-pure: src/catalog/core/risk.ts → src/cli/planted.ts",
        "error only-cli-imports-cli: src/catalog/core/risk.ts → src/cli/planted.ts",
        "error floor-catalog/core: src/catalog/core/risk.ts → src/cli/planted.ts"
      ]
    },
    {
      title: "the MCP front end's pure modules importing a service and the MCP server",
      plants: [
        { append: "src/mcp/hostConfig.ts", line: `import "../services/fileRead.js"` },
        { append: "src/mcp/server/untrusted.ts", line: `import "./McpServer.js"` }
      ],
      violations: [
        "error pure-imports-only-pure: src/mcp/server/untrusted.ts → src/mcp/server/McpServer.ts",
        "error pure-imports-only-pure: src/mcp/hostConfig.ts → src/services/fileRead.ts"
      ]
    },
    {
      title: "a service importing a layer",
      plants: [leaf("src/layers/Planted.ts"), { append: "src/inventory/discover/IdentityReader.ts", line: `import "../../layers/Planted.js"` }],
      violations: [
        "error services-import-no-layers: src/inventory/discover/IdentityReader.ts → src/layers/Planted.ts",
        "error floor-inventory/discover: src/inventory/discover/IdentityReader.ts → src/layers/Planted.ts"
      ]
    },
    {
      title: "a service importing the public index",
      plants: [{ create: "src/services/planted.ts", text: `import type * as Api from "../index.js"\nexport type Planted = typeof Api\n` }],
      violations: [
        "error services-import-no-layers: src/services/planted.ts → src/index.ts",
        "error floor-services: src/services/planted.ts → src/index.ts"
      ]
    },
    {
      title: "a store importing the CLI",
      plants: [leaf("src/cli/planted.ts"), { append: "src/catalog/stores/jsonFile.ts", line: `import "../../cli/planted.js"` }],
      violations: [
        "error services-import-no-layers: src/catalog/stores/jsonFile.ts → src/cli/planted.ts",
        "error only-cli-imports-cli: src/catalog/stores/jsonFile.ts → src/cli/planted.ts",
        "error floor-catalog/stores: src/catalog/stores/jsonFile.ts → src/cli/planted.ts"
      ]
    },
    {
      title: "a layer importing the CLI",
      plants: [leaf("src/cli/planted.ts"), { append: "src/layers/HostLayer.ts", line: `import "../cli/planted.js"` }],
      violations: [
        "error only-cli-imports-cli: src/layers/HostLayer.ts → src/cli/planted.ts",
        "error floor-layers: src/layers/HostLayer.ts → src/cli/planted.ts"
      ]
    },
    {
      title: "source importing test, bench and examples files",
      plants: [
        leaf("test/planted.ts"),
        leaf("bench/planted.ts"),
        leaf("examples/planted.ts"),
        { append: "src/version.ts", line: `import "../test/planted.js"` },
        { append: "src/layers/CoreLayer.ts", line: `import "../../bench/planted.js"` },
        { append: "src/cli/main.ts", line: `import "../../examples/planted.js"` }
      ],
      violations: [
        "error src-imports-no-tests: src/version.ts → test/planted.ts",
        "error src-imports-no-tests: src/layers/CoreLayer.ts → bench/planted.ts",
        "error src-imports-no-tests: src/cli/main.ts → examples/planted.ts"
      ]
    },
    {
      title: "the bundle importing query, a floor above it (issue 28: the lumped services rule passed it)",
      plants: [{ append: "src/inventory/bundle/whichIndex.ts", line: `import "../query/toolQueries.js"` }],
      violations: ["error floor-inventory/bundle: src/inventory/bundle/whichIndex.ts → src/inventory/query/toolQueries.ts"]
    },
    {
      title: "a folder cycle with no module cycle: services importing a catalog store that imports services",
      plants: [{ append: "src/services/ToolSnapshots.ts", line: `import "../catalog/stores/jsonFile.js"` }],
      violations: ["error floor-services: src/services/ToolSnapshots.ts → src/catalog/stores/jsonFile.ts"]
    },
    {
      title: "a platform shim importing discover",
      plants: [leaf("src/inventory/discover/planted.ts"), { append: "src/platform/SyncNodeFileSystem.ts", line: `import "../inventory/discover/planted.js"` }],
      violations: ["error floor-platform: src/platform/SyncNodeFileSystem.ts → src/inventory/discover/planted.ts"]
    },
    {
      title: "the gateway importing a layer",
      plants: [leaf("src/layers/Planted.ts"), { append: "src/mcp/gateway/Downstream.ts", line: `import "../../layers/Planted.js"` }],
      violations: ["error floor-mcp/gateway: src/mcp/gateway/Downstream.ts → src/layers/Planted.ts"]
    },
    {
      title: "the gateway importing a reader's own module instead of the agent-host readers' entry",
      plants: [{ append: "src/mcp/gateway/Downstream.ts", line: `import "../../inventory/discover/agentHosts/configText.js"` }],
      violations: ["error agent-hosts-through-their-entry: src/mcp/gateway/Downstream.ts → src/inventory/discover/agentHosts/configText.ts"]
    },
    {
      title: "a module on no floor",
      plants: [{ create: "src/planted/thing.ts", text: `import { TOOL_MAP_VERSION } from "../version.js"\nexport const planted = TOOL_MAP_VERSION\n` }],
      violations: ["error placed-on-a-floor: src/planted/thing.ts → src/version.ts"]
    },
    {
      title: "a domain rule importing the catalog's core (the inventory → catalog/core cycle of issue 28)",
      plants: [{ append: "src/inventory/domain/ledger.ts", line: `import "../../catalog/core/risk.js"` }],
      violations: ["error floor-inventory/domain: src/inventory/domain/ledger.ts → src/catalog/core/risk.ts"]
    },
    {
      title: "a cycle between two domain files",
      plants: [
        { append: "src/inventory/domain/secrets.ts", line: `import "./categories.js"` },
        { append: "src/inventory/domain/categories.ts", line: `import "./secrets.js"` }
      ],
      violations: [
        "error no-circular: src/inventory/domain/categories.ts →",
        "src/inventory/domain/secrets.ts →",
        "src/inventory/domain/categories.ts"
      ]
    },
    {
      title: "an import nothing resolves",
      plants: [{ append: "src/inventory/domain/roots.ts", line: `import "./no-such-module.js"` }],
      violations: ["error no-unresolvable: src/inventory/domain/roots.ts → ./no-such-module.js"]
    }
  ]

  cases.forEach(({ plants, title, violations }, index) =>
    it(`fails on ${title}, naming the rule`, async () => {
      const errors = violations.filter((line) => line.startsWith("error ")).length
      expect(await cruiseCopy(copyWith(`case-${index}`, plants))).toEqual({
        status: errors,
        violations,
        summary: `x ${errors} dependency violations (${errors} errors, 0 warnings).`
      })
    }, TIMEOUT)
  )
})
