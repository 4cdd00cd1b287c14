import { describe, expect, it } from "vitest"
import * as NodePath from "node:path"
import ts from "typescript"

const ROOT = NodePath.resolve(import.meta.dirname, "..")

/** Every name the library exports, per namespace, with whether it carries a JSDoc comment. */
const publicApi = () => {
  const program = ts.createProgram([NodePath.join(ROOT, "src/index.ts")], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true
  })
  const checker = program.getTypeChecker()
  const index = checker.getSymbolAtLocation(program.getSourceFile(NodePath.join(ROOT, "src/index.ts"))!)!
  const resolved = (symbol: ts.Symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol)
  const documented = (symbol: ts.Symbol) =>
    symbol.getDocumentationComment(checker).length > 0 ||
    (symbol.declarations ?? []).some((declaration) =>
      // `export * as Name from …` carries its comment on the export declaration around it.
      [declaration, declaration.parent].some((node) => node !== undefined && ts.getJSDocCommentsAndTags(node).length > 0)
    )
  return checker.getExportsOfModule(index).map((namespace) => ({
    name: namespace.name,
    documented: documented(namespace),
    members: checker.getExportsOfModule(resolved(namespace)).map((member) => ({
      name: member.name,
      documented: documented(resolved(member)) || documented(member)
    }))
  }))
}

describe("the public API", () => {
  const api = publicApi()

  it("is five namespaces, each with a JSDoc line", () => {
    expect(api.map((namespace) => [namespace.name, namespace.documented])).toEqual([
      ["Inventory", true],
      ["Catalog", true],
      ["Host", true],
      ["Errors", true],
      ["Testing", true]
    ])
  })

  it("documents every export", () => {
    const undocumented = api.flatMap((namespace) =>
      namespace.members.filter((member) => !member.documented).map((member) => `${namespace.name}.${member.name}`)
    )
    expect(undocumented).toEqual([])
  })

  it("names the catalog tree `Catalog.Catalog` and the builder service `Host.CatalogBuilder`, never the same word", () => {
    const names = (namespace: string) => api.find((entry) => entry.name === namespace)!.members.map((member) => member.name)
    expect(names("Catalog")).toContain("Catalog")
    expect(names("Host")).toContain("CatalogBuilder")
    expect(names("Host")).not.toContain("Catalog")
  })
})
