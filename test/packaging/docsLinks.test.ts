// The documentation's links (issue 29, point 1): every relative link of the README, CONTRIBUTING,
// the CHANGELOG and docs/*.md reaches a file that exists and, with a #fragment, a heading of it
// (GitHub's anchor of the heading); the README's docs table indexes every page of docs/, the
// user guide first.
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "../..")
const DOCS = fs.readdirSync(path.join(ROOT, "docs")).filter((name) => name.endsWith(".md")).sort()
const PAGES = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", ...DOCS.map((name) => `docs/${name}`)]

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8")

/** GitHub's anchor of a heading: lower case, only letters, digits, `_`, `-` and spaces, spaces as `-`. */
const anchorOf = (heading: string) =>
  heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, "").replaceAll(" ", "-")

/** The anchors of a markdown file's headings, outside fenced code. */
const anchorsOf = (file: string): ReadonlySet<string> => {
  let fenced = false
  const anchors = new Set<string>()
  for (const line of read(file).split("\n")) {
    if (line.startsWith("```")) fenced = !fenced
    else if (!fenced && /^#{1,6} /.test(line)) anchors.add(anchorOf(line.replace(/^#+ /, "")))
  }
  return anchors
}

/** The relative links `[text](target)` of a page, outside fenced code. */
const linksOf = (file: string): ReadonlyArray<string> => {
  let fenced = false
  return read(file).split("\n").flatMap((line) => {
    if (line.startsWith("```")) {
      fenced = !fenced
      return []
    }
    return fenced ? [] : [...line.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!)
  }).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
}

describe("the documentation's links", () => {
  it("reach a file that exists, and a heading of it for a #fragment", () => {
    const broken = PAGES.flatMap((page) =>
      linksOf(page).flatMap((target) => {
        const [file = "", fragment] = target.split("#")
        const resolved = file === "" ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file))
        if (!fs.existsSync(path.join(ROOT, resolved))) return [`${page}: ${target} (no such file)`]
        if (fragment !== undefined && resolved.endsWith(".md") && !anchorsOf(resolved).has(fragment)) {
          return [`${page}: ${target} (no such heading)`]
        }
        return []
      })
    )
    expect(broken).toEqual([])
  })

  it("anchor headings as GitHub does", () => {
    expect(anchorOf("What changed: `query changes --since`")).toBe("what-changed-query-changes---since")
    expect(anchorOf("Why does `query context` differ from `claude plugin details`?")).toBe("why-does-query-context-differ-from-claude-plugin-details")
    expect(anchorOf("A host's servers in the CLI's catalog")).toBe("a-hosts-servers-in-the-clis-catalog")
  })

  it("the README's docs table indexes every page of docs/, the guide and the FAQ first", () => {
    const table = /## Documentation\n\n\| page \| what it covers \|\n\|---\|---\|\n((?:\|.*\n)+)/.exec(read("README.md"))
    const listed = [...(table?.[1] ?? "").matchAll(/^\| \[docs\/([^\]]+)\]\(docs\/\1\) \|/gm)].map((match) => match[1]!)
    expect(listed.slice(0, 2)).toEqual(["guide.md", "faq.md"])
    expect([...listed].sort()).toEqual(DOCS)
  })
})
