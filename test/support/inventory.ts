import { AgentHostsInventory } from "../../src/inventory/domain/agentHosts.js"
import { HostInfo, Identity, Inventory, RootReport, Tool, type VersionReport, WatchSet } from "../../src/inventory/domain/inventory.js"

/** A tool record for render tests: `/bin/<name>`, category `other`, unless `fields` say otherwise. */
export const toolNamed = (name: string, fields: Partial<ConstructorParameters<typeof Tool>[0]> = {}): Tool =>
  new Tool({
    name,
    path: `/bin/${name}`,
    linkTarget: null,
    size: 1,
    mtime: "2026-01-01T00:00:00.000Z",
    root: "/bin",
    rootKind: "path",
    pathIndex: 0,
    shadowedBy: null,
    alsoAt: [],
    category: "other",
    ...fields
  })

/** An inventory of `tools` with one PATH dir (`/bin` unless `pathDir`), no agent hosts, no diagnostics. */
export const inventoryOf = (
  tools: ReadonlyArray<Tool>,
  extra: { readonly versions?: ReadonlyArray<VersionReport>; readonly identity?: Identity; readonly pathDir?: string } = {}
): Inventory =>
  new Inventory({
    schemaVersion: 1,
    generation: "20260101T000000Z-00000000",
    generatedAt: "2026-01-01T00:00:00.000Z",
    host: new HostInfo({ os: "linux", arch: "x64", node: "v20.20.2", toolMap: "0.1.0" }),
    path: [
      new RootReport({ path: extra.pathDir ?? "/bin", kind: "path", depth: "one-level", pathIndex: 0, status: "ok", reason: null, toolCount: tools.length })
    ],
    roots: [],
    tools,
    versions: extra.versions ?? [],
    identity: extra.identity ?? new Identity({ gitUserName: "Test User", gitUserEmail: "test@example.com", sshFiles: [] }),
    agentHosts: AgentHostsInventory.empty,
    diagnostics: [],
    watch: new WatchSet({ toolMapVersion: "0.1.0", pathVariable: "", extraRoots: "", inputs: [] })
  })
