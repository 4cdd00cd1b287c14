import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runAgentsBench } from "./agents.js"
import { benchAgentHostRead } from "./agentHostRead.js"
import { benchAgentHosts } from "./agentHosts.js"
import { runCatalogBench } from "./catalog.js"
import { benchCatalogCli } from "./catalogCli.js"
import { benchScan } from "./scan.js"
import { benchStartup } from "./startup.js"
import { runTokensBench } from "./tokens.js"
import { benchWalk, renderWalkTable } from "./walk.js"

/**
 * Runs every bench and writes the figures between the bench markers of README.md
 * (`npm run bench`; `--no-readme` only prints them).
 */
const main = async () => {
  const sections: Array<[string, string]> = []
  const section = async (title: string, run: () => string | Promise<string>) => {
    process.stderr.write(`bench: ${title}\n`)
    sections.push([title, await run()])
  }
  await section("Scan of this machine against envinfo", () => benchScan())
  await section("Start-up of the no-op paths against node -e 0 (median of 15 interleaved runs)", () => benchStartup(15))
  await section("Walk of synthetic PATH trees", async () => renderWalkTable(await benchWalk({})))
  await section("Agent-host scan of generated Claude Code homes", () => benchAgentHosts({}))
  await section("Agent-host part of a scan against a read-and-parse script", () => benchAgentHostRead())
  await section("Catalog build, listing and search", () => runCatalogBench())
  await section("Catalog listings through the CLI against a bare JSON.parse of the schemas file", () => benchCatalogCli())
  await section("Token estimate against o200k", () => runTokensBench())
  await section("Attach and detach of 1,000 agents of 200 tools (heap after GC)", () => runAgentsBench())
  const load = os.loadavg().map((value) => value.toFixed(1)).join(" ")
  const text = [
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npm run bench\` on ${os.cpus().length} cores, Node ${process.version}, load average at the end ${load}.`,
    ...sections.flatMap(([title, body]) => ["", `### ${title}`, "", body.trim()])
  ].join("\n")
  console.log(text)
  // The figures go between the markers of docs/performance.md (they left the README, issue 29),
  // whose sections sit one heading level higher than the benches print them.
  if (!process.argv.includes("--no-readme")) {
    const doc = path.resolve(import.meta.dirname, "..", "docs", "performance.md")
    const current = fs.readFileSync(doc, "utf8")
    const start = current.indexOf("<!-- bench:start -->")
    const end = current.indexOf("<!-- bench:end -->")
    if (start < 0 || end < start) throw new Error(`${doc} has no <!-- bench:start --> … <!-- bench:end --> block to write the figures into`)
    fs.writeFileSync(doc, `${current.slice(0, start)}<!-- bench:start -->\n${text.replace(/^### /gm, "## ")}\n${current.slice(end)}`)
  }
}

await main()
