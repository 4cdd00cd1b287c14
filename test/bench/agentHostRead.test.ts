import { NodeFileSystem } from "@effect/platform-node"
import { FileSystem } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodePath from "node:path"
import { readAndParse, renderAgentHostReadTable } from "../../bench/agentHostRead.js"
import { claudeHome, writeTree } from "../../bench/hostGenerators.js"

describe("bench/agentHostRead: the read-and-parse reference script", () => {
  it.scopedLive("parses the frontmatter of every .md file under the dir, and only those", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "bench-host-read-" })
      yield* writeTree(dir, {
        ...claudeHome(30).tree,
        ".claude/agents/plain.md": "No frontmatter here.\n",
        ".claude/agents/notes.txt": "---\nname: x\n---\n"
      })
      expect(readAndParse(NodePath.join(dir, ".claude"))).toEqual({ files: 31, withFrontmatter: 30 })
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it("renders one row a size, with both ratios of wall time and the per-round ratio of CPU time", () => {
    const table = renderAgentHostReadTable(
      [{ items: 1000, scanMs: 90, scriptMs: 60, pairedRatio: 1.4, scanCpuMs: 120, scriptCpuMs: 58, pairedCpuRatio: 2.05 }],
      7
    ).split("\n")
    expect(table.slice(2, 5)).toEqual([
      "| items | agent-host scan ms | read-and-parse script ms | scan / script (medians) | median of per-round ratios | scan CPU ms | script CPU ms | CPU: median of per-round ratios |",
      "|---:|---:|---:|---:|---:|---:|---:|---:|",
      "| 1000 | 90.0 | 60.0 | 1.50 | 1.40 | 120 | 58.0 | 2.05 |"
    ])
  })
})
