import { describe, expect, it } from "vitest"
import { baseToolName, categorize, CATEGORY_ORDER } from "../../../src/inventory/domain/categories.js"

describe("categorize", () => {
  it("places names by the table, with version suffixes and Windows extensions removed", () => {
    expect(
      ["python3.12", "node", "NODE.EXE", "npm.cmd", "git", "git-lfs", "docker-compose", "kubectl", "make", "nvim", "zsh", "curl", "psql", "pg_dump", "tar", "jq", "sha256sum", "ls", "claude", "gcc-12", "my-own-script"].map(
        (name) => [name, categorize(name)]
      )
    ).toEqual([
      ["python3.12", "runtimes"],
      ["node", "runtimes"],
      ["NODE.EXE", "runtimes"],
      ["npm.cmd", "package-managers"],
      ["git", "version-control"],
      ["git-lfs", "version-control"],
      ["docker-compose", "containers-cloud"],
      ["kubectl", "containers-cloud"],
      ["make", "build-tools"],
      ["nvim", "editors"],
      ["zsh", "shells"],
      ["curl", "network"],
      ["psql", "databases"],
      ["pg_dump", "databases"],
      ["tar", "archives"],
      ["jq", "text-processing"],
      ["sha256sum", "text-processing"],
      ["ls", "system"],
      ["claude", "ai-agents"],
      ["gcc-12", "runtimes"],
      ["my-own-script", "other"]
    ])
  })

  it("ends the category order with other", () => {
    expect(CATEGORY_ORDER.at(-1)).toBe("other")
    expect(baseToolName("Python.EXE")).toBe("python")
  })
})
