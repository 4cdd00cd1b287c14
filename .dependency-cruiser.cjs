/**
 * The import rules of tool-map's source, checked by `npm run lint:imports` (part of `npm test`).
 * They keep the folders meaning what they say: the data flows from pure rules through services
 * to the composed layers and the CLI on top, never back. The folders are floors in one order
 * (FLOORS below, docs/layout.md): no module imports a floor above its own, so no two folders
 * form a cycle either. Only `src/` is checked: tests, benches
 * and examples may import anything.
 */

/**
 * The pure modules: rules and data shapes with no I/O and no services. Besides the two pure
 * folders, the MCP front end's own rules: the hosts' configuration snippets, the parsed flags of
 * `tool-map mcp` and the boundary of untrusted text on its way to a client.
 */
const PURE = "^src/((inventory/domain|catalog/core)/|mcp/(hostConfig|server/options|server/untrusted)[.]ts$)"
/** Services, stores and platform shims: everything below the composed layers except the pure modules. */
const SERVICES = "^src/(inventory|catalog/services|catalog/stores|services|platform)/"

/**
 * The floors of src/, lowest first (docs/layout.md, "The floors"): a module imports only modules
 * of its own floor or of a floor below it. An order excludes folder cycles too: two folders that
 * import each other would each be below the other. Each entry is the floor's name and the path
 * of its modules; a module of src/ on no floor fails `placed-on-a-floor`.
 */
const FLOORS = [
  ["version", "^src/version[.]ts$"],
  ["inventory/domain", "^src/inventory/domain/"],
  ["catalog/core", "^src/catalog/core/"],
  ["services", "^src/services/"],
  ["platform", "^src/platform/"],
  ["inventory/discover", "^src/inventory/discover/"],
  ["inventory/probe", "^src/inventory/probe/"],
  ["inventory/bundle", "^src/inventory/bundle/"],
  ["inventory/query", "^src/inventory/query/"],
  ["inventory/render", "^src/inventory/render/"],
  ["inventory (the scanner)", "^src/inventory/[^/]+[.]ts$"],
  ["catalog/stores", "^src/catalog/stores/"],
  ["catalog/services", "^src/catalog/services/"],
  ["mcp (its pure host snippets)", "^src/mcp/[^/]+[.]ts$"],
  ["mcp/server", "^src/mcp/server/"],
  ["mcp/gateway", "^src/mcp/gateway/"],
  ["mcp/setup", "^src/mcp/setup/"],
  ["layers", "^src/layers/"],
  ["api", "^src/api/"],
  ["cli", "^src/cli/"],
  ["index", "^src/index[.]ts$"],
  ["bin", "^src/bin[.]ts$"]
]

/**
 * Imports that still run up a floor, each with why it is not moved yet. Every one is a debt of
 * issue 28 ("the import rules made real"); remove the entry with the move that ends it.
 */
/**
 * Imports allowed to run up a floor, each with its reason and issue. None today: the last one
 * (the ledger's token estimate in catalog/core) moved below it, to inventory/domain/tokens.ts.
 */
const UPWARD_EXCEPTIONS = []

const exact = (file) => `^${file.replace(/[.]/g, "[.]")}$`

const floorRules = FLOORS.flatMap(([name, path], index) => {
  const above = FLOORS.slice(index + 1).map(([, upper]) => upper)
  const short = name.split(" ")[0]
  const excepted = [...new Set(UPWARD_EXCEPTIONS.filter((exception) => new RegExp(path).test(exception.from)).map((exception) => exception.from))]
  return [
    {
      name: `floor-${short}`,
      comment:
        `${name} is floor ${index + 1} of ${FLOORS.length} (docs/layout.md): it imports no module of a floor above it, ` +
        "which also forbids a cycle between folders.",
      severity: "error",
      from: { path, pathNot: excepted.map(exact) },
      to: { path: above.length === 0 ? "^$" : above }
    },
    // A module with an excepted import keeps the rule for every other import it makes.
    ...excepted.map((from) => ({
      name: `floor-${short}-except`,
      comment: UPWARD_EXCEPTIONS.filter((exception) => exception.from === from)
        .map((exception) => `${from} imports ${exception.to} above its floor: ${exception.reason}`).join(" "),
      severity: "error",
      from: { path: exact(from) },
      to: {
        path: above.length === 0 ? "^$" : above,
        pathNot: UPWARD_EXCEPTIONS.filter((exception) => exception.from === from).map((exception) => exact(exception.to))
      }
    }))
  ]
})

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    ...floorRules,
    {
      name: "placed-on-a-floor",
      comment: "Every module of src/ is on one floor of FLOORS: a new folder gets its place in the order (and in docs/layout.md) before it gets code.",
      severity: "error",
      from: { path: "^src/", pathNot: FLOORS.map(([, path]) => path) },
      to: {}
    },
    {
      name: "pure-imports-only-pure",
      comment:
        "A pure module (inventory/domain, catalog/core, and mcp/hostConfig.ts, mcp/server/options.ts, " +
        "mcp/server/untrusted.ts) holds a rule a reader must find in one place " +
        "and test without a graph: it imports only other pure modules, src/version.ts, node built-ins " +
        "and npm packages, never a service, store, platform shim, layer or the CLI.",
      severity: "error",
      from: { path: PURE },
      to: { path: "^src/", pathNot: [PURE, "^src/version[.]ts$"] }
    },
    {
      name: "agent-hosts-through-their-entry",
      comment:
        "The agent-host readers (src/inventory/discover/agentHosts/) are used from outside through one " +
        "entry, agentHosts/index.ts: the scanner, the layers, the gateway and its setup import what it " +
        "exports and nothing else of the folder, so the readers' files, their service and their " +
        "rules can change shape without a reader of them elsewhere noticing.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/inventory/discover/agentHosts/" },
      to: { path: "^src/inventory/discover/agentHosts/", pathNot: "^src/inventory/discover/agentHosts/index[.]ts$" }
    },
    {
      name: "services-import-no-layers",
      comment:
        "A service is built by a layer and must not know how the graph is composed: a service that " +
        "imports src/layers, src/cli or the public index pulls the whole program into every test of it " +
        "and closes a cycle through the graph that provides it.",
      severity: "error",
      from: { path: SERVICES, pathNot: PURE },
      to: { path: ["^src/layers/", "^src/cli/", "^src/index[.]ts$"] }
    },
    {
      name: "nothing-below-imports-mcp",
      comment:
        "src/mcp is a front end on the graph, like the CLI: it may import services and layers, but no " +
        "pure module, service, store or platform shim may import it (they would carry the MCP SDK into " +
        "every other front end and close a cycle through the server that uses them). Only the MCP " +
        "layer and the gateway's (src/layers/McpLayer.ts, GatewayLayer.ts), the CLI's mcp and gateway commands, its " +
        "catalog over a host's servers (src/cli/catalogHost.ts: the gateway's servers and snapshots) and src/mcp itself import it.",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/mcp/", "^src/layers/(McpLayer|GatewayLayer)[.]ts$", "^src/cli/mcpCommand[.]ts$", "^src/cli/gatewayCommands[.]ts$", "^src/cli/catalogHost[.]ts$"] },
      to: { path: "^src/mcp/" }
    },
    {
      name: "only-cli-imports-cli",
      comment:
        "The CLI is one front end on the graph (the embedding host and the MCP server are others): " +
        "nothing but the CLI itself and src/bin.ts may depend on its parsing, output or exit codes " +
        "(src/mcp neither: what it shares with the CLI lives in the services below both).",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/cli/", "^src/bin[.]ts$"] },
      to: { path: "^src/cli/" }
    },
    {
      name: "src-imports-no-tests",
      comment:
        "The published build contains src/ only: an import of test/, bench/ or examples/ would break " +
        "the package and tie the product to its fixtures.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|examples)/" }
    },
    {
      name: "no-circular",
      comment:
        "A cycle makes the order of module initialisation decide whether a value is defined yet, and " +
        "means two modules are one: type-only imports count, as they tie the designs together just the same.",
      severity: "error",
      from: {},
      to: { circular: true }
    },
    {
      name: "no-unresolvable",
      comment:
        "An import the checker cannot resolve is an edge no rule sees: fail instead of passing blindly.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true }
    }
  ],
  options: {
    // Type-only imports are dependencies of the design too (a domain file importing a service's types).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".d.ts"]
    },
    cache: false
  }
}
