/**
 * The import rules of tool-map's source, checked by `npm run lint:imports` (part of `npm test`).
 * They keep the folders meaning what they say: the data flows from pure rules through services
 * to the composed layers and the CLI on top, never back. Only `src/` is checked: tests, benches
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

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
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
        "layer, the CLI's mcp and gateway commands and src/mcp itself import it.",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/mcp/", "^src/layers/McpLayer[.]ts$", "^src/cli/mcpCommand[.]ts$", "^src/cli/gatewayCommands[.]ts$"] },
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
