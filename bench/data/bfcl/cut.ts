/**
 * Cuts the BFCL development set (issue 30) from a fetched snapshot of ShishirPatil/gorilla:
 *
 *   npx tsx bench/data/bfcl/cut.ts GORILLA_GIT_DIR [COMMIT]
 *
 * It reads, with `git show`, two files of the Berkeley Function Calling Leaderboard v4
 * (`berkeley-function-call-leaderboard/bfcl_eval/data/`): `BFCL_v4_multiple.json` (a task and
 * 2-4 candidate functions, one of them right) and `BFCL_v4_parallel_multiple.json` (a task that
 * needs two or more of its candidate functions), with their `possible_answer/` files. Every
 * candidate function of every task joins one catalog (the first definition of a name is kept;
 * the top-level `"type": "dict"` becomes `"object"`), and each task asks for the functions its
 * ground truth calls (each name once). Writes `tools.json` and `tasks.jsonl` beside this file.
 */
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const DATA = "berkeley-function-call-leaderboard/bfcl_eval/data"

interface BfclFunction {
  readonly name: string
  readonly description?: string
  readonly parameters: Readonly<Record<string, unknown>>
}

export interface BfclTool {
  readonly name: string
  readonly description: string
  readonly inputSchema: unknown
}

export interface BfclTask {
  readonly qid: string
  readonly query: string
  readonly relevant: ReadonlyArray<string>
}

const lines = <A>(text: string): Array<A> => text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as A)

/**
 * The tasks of BFCL data files (`parts`: file name and qid prefix) in a gorilla git dir at
 * `commit`, and one catalog of every candidate function they offer (the first definition of a
 * name kept, a top-level `"type": "dict"` made `"object"`); a task's relevant tools are the
 * distinct names its ground truth calls.
 */
export const readBfcl = (
  gitDir: string,
  commit: string,
  parts: ReadonlyArray<{ readonly file: string; readonly prefix: string }>
): { readonly tools: Array<BfclTool>; readonly tasks: Array<BfclTask> } => {
  const show = (file: string): string =>
    execFileSync("git", ["--git-dir", gitDir, "show", `${commit}:${DATA}/${file}`], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  const tools = new Map<string, BfclTool>()
  const tasks: Array<BfclTask> = []
  for (const part of parts) {
    const questions = lines<{ id: string; question: ReadonlyArray<ReadonlyArray<{ role: string; content: string }>>; function: ReadonlyArray<BfclFunction> }>(show(part.file))
    const answers = new Map(lines<{ id: string; ground_truth: ReadonlyArray<Readonly<Record<string, unknown>>> }>(show(`possible_answer/${part.file}`))
      .map((answer) => [answer.id, answer.ground_truth]))
    for (const question of questions) {
      for (const fn of question.function) {
        if (tools.has(fn.name)) continue
        const schema = fn.parameters["type"] === "dict" ? { ...fn.parameters, type: "object" } : fn.parameters
        tools.set(fn.name, { name: fn.name, description: fn.description ?? "", inputSchema: schema })
      }
      const truth = answers.get(question.id)
      if (truth === undefined) throw new Error(`${part.file}: no answer for ${question.id}`)
      const relevant = [...new Set(truth.flatMap((call) => Object.keys(call)))]
      const query = question.question.flat().filter((turn) => turn.role === "user").map((turn) => turn.content).join("\n")
      tasks.push({ qid: `${part.prefix}:${question.id}`, query, relevant })
    }
  }
  for (const task of tasks) for (const name of task.relevant) if (!tools.has(name)) throw new Error(`${task.qid} calls ${name}, not a candidate`)
  return { tools: [...tools.values()], tasks }
}

const main = (gitDir: string | undefined, commit = "HEAD") => {
  if (gitDir === undefined) {
    process.stderr.write("usage: npx tsx bench/data/bfcl/cut.ts GORILLA_GIT_DIR [COMMIT]\n")
    process.exit(2)
  }
  const { tools, tasks } = readBfcl(gitDir, commit, [
    { file: "BFCL_v4_multiple.json", prefix: "single" },
    { file: "BFCL_v4_parallel_multiple.json", prefix: "multi" }
  ])
  const here = path.dirname(fileURLToPath(import.meta.url))
  writeFileSync(path.join(here, "tools.json"), `${JSON.stringify({ tools }, null, 1)}\n`)
  writeFileSync(path.join(here, "tasks.jsonl"), tasks.map((task) => JSON.stringify(task)).join("\n") + "\n")
  process.stdout.write(`${tools.length} tools, ${tasks.length} tasks (${tasks.filter((t) => t.relevant.length > 1).length} with 2 or more tools)\n`)
}

if (process.argv[1]?.endsWith("cut.ts")) main(process.argv[2], process.argv[3])
