// Issue 15, points 1-7 and 10: the CLI as a person meets it, through the built dist/tool-map.cjs:
// help screens, shell completion (sourced in bash, zsh and fish), usage errors, --wizard without a
// terminal, failed writes to stdout, --from that never writes, a relative data dir, which name a
// --name glob matched, and tables aligned by display width.
import { execFileSync, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest"
import { allCommands } from "../../src/cli/commandTree.js"
import { commandTree } from "../../src/cli/main.js"
import { displayWidth } from "../../src/inventory/domain/displayWidth.js"
import { BIN, makeTempDir, requireBuiltCli, runCli, writeExecutable } from "../support/cli.js"

/** Every line of a text, measured in display columns. */
const widest = (text: string) => Math.max(...text.split("\n").map(displayWidth))

describe("the CLI surface (issue 15)", () => {
  let temp: ReturnType<typeof makeTempDir>
  let env: Record<string, string>
  let binDir: string

  beforeAll(() => {
    requireBuiltCli()
    temp = makeTempDir("tool-map-surface-")
    const home = path.join(temp.dir, "home")
    binDir = path.join(temp.dir, "bin")
    fs.mkdirSync(home, { recursive: true })
    // `tool-map` on PATH, as an install puts it, for the completion scripts to call.
    writeExecutable(path.join(binDir, "tool-map"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
    writeExecutable(path.join(binDir, "gitk"))
    env = { HOME: home, PATH: `${binDir}:/usr/bin:/bin`, PLUGIN_DATA: path.join(temp.dir, "data"), LANG: "C.UTF-8" }
  })
  afterAll(() => temp.remove())

  describe("help", () => {
    it("every help screen fits 80 columns, names its full command path, has examples and no colour in a pipe", () => {
      for (const command of allCommands(commandTree())) {
        const words = command.path.slice(1)
        const run = runCli([...words, "--help"], env)
        const shown = words.join(" ")
        expect([shown, run.status, run.stderr]).toEqual([shown, 0, ""])
        expect([shown, widest(run.stdout) <= 80]).toEqual([shown, true])
        expect([shown, run.stdout.startsWith(`Usage: ${command.path.join(" ")}`)]).toEqual([shown, true])
        expect([shown, run.stdout.includes("\x1b")]).toEqual([shown, false])
        expect([shown, run.stdout.includes(`\nExamples:\n  $ ${command.path.join(" ")}`)]).toEqual([shown, true])
        if (words.length > 0) {
          // No boilerplate inherited from the root: one line points to it.
          expect([shown, /--wizard|--log-level LEVEL  /.test(run.stdout)]).toEqual([shown, false])
          expect([shown, run.stdout.split("\n").length < 50]).toEqual([shown, true])
        }
      }
    })

    it("`query which --help` reads as written", () => {
      const run = runCli(["query", "which", "--help"], env)
      expect(run.stdout).toBe(
        [
          "Usage: tool-map query which [options] NAME",
          "",
          "Every copy of NAME in PATH order, the one that wins, and its version when",
          "probed.",
          "",
          "Arguments:",
          "  NAME  A command name as the shell calls it (git, python3).",
          "",
          "Options:",
          "  --json          Print one JSON value on stdout and nothing else.",
          "  --from PATH.md  Read the bundle written by `tool-map scan PATH.md` instead of",
          "                  the default one, named by any of its files (PATH.md,",
          "                  PATH.json, PATH.summary.md). Only reads: a missing bundle is",
          "                  an error (exit 4).",
          "  --fresh         Refresh the bundle first if it is stale: rescan when a watched",
          "                  input (PATH, TOOL_MAP_ROOTS, a PATH directory, an agent host's",
          "                  file) changed since the last scan, as `scan --if-stale` does,",
          "                  and answer from the new bundle; when nothing changed, answer",
          "                  at once. Without it a stale answer is noted on stderr. Not",
          "                  with --from, which only reads.",
          "",
          "Examples:",
          "  $ tool-map query which git",
          "  $ tool-map query which python3 --json",
          "",
          "Global options (--help, --version, --completions SHELL, --log-level LEVEL) and",
          "exit codes: tool-map --help.",
          ""
        ].join("\n")
      )
    })

    it("the top-level help lists every command, the global options and the exit codes", () => {
      const run = runCli(["--help"], env)
      expect(run.status).toBe(0)
      for (const leaf of ["scan", "query which", "query agents", "export claude-v1", "catalog ls", "catalog find", "mcp"]) {
        expect(run.stdout).toContain(`\n  ${leaf} `)
      }
      expect(run.stdout).toContain("\n  --completions SHELL ")
      expect(run.stdout).toContain("\n  74   standard output cannot be written")
      expect(runCli(["-h"], env).stdout).toBe(run.stdout)
    })

    const onTty = (command: string, extra: Record<string, string>) =>
      execFileSync("script", ["-qec", `stty cols 60; ${command}`, "/dev/null"], { env: { ...env, ...extra }, encoding: "utf8" }).replace(/\r/g, "")

    it("on a terminal: wrapped at its width, bold headings unless NO_COLOR or TERM=dumb", () => {
      const command = `"${process.execPath}" "${BIN}" query agents --help`
      const coloured = onTty(command, { TERM: "xterm" })
      expect(coloured.startsWith("\x1b[1mUsage:\x1b[22m tool-map query agents [options]")).toBe(true)
      expect(widest(coloured.replace(/\x1b\[\d+m/g, ""))).toBeLessThanOrEqual(60)
      expect(widest(coloured.replace(/\x1b\[\d+m/g, ""))).toBeGreaterThan(50)
      for (const plain of [{ TERM: "xterm", NO_COLOR: "1" }, { TERM: "dumb" }]) {
        const text = onTty(command, plain)
        expect(text.includes("\x1b")).toBe(false)
        expect(text).toBe(coloured.replace(/\x1b\[\d+m/g, ""))
      }
    })
  })

  describe("usage errors name the word, the command, the choices and a close match (exit 2)", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [
        ["query", "whcih"],
        "unknown command 'whcih' for `tool-map query` (did you mean which?). Valid: tools, which, versions, stale, context"
      ],
      [["catalog", "lss"], "unknown command 'lss' for `tool-map catalog` (did you mean ls?). Valid: ls, find, load, unload, diff, snapshot, approve, vectors."],
      [["frob"], "unknown command 'frob' for `tool-map`. Valid: scan, query, export, catalog, mcp, gateway. See `tool-map --help`."],
      [
        ["query", "which", "--frob", "node"],
        "unknown option '--frob' for `tool-map query which` (did you mean --from?). Valid: --json, --from, --fresh. See `tool-map query which --help`."
      ],
      [["scan", "--no-probe"], "unknown option '--no-probe' for `tool-map scan` (did you mean --no-probes?)."],
      [["query", "tools", "--name"], "--name needs a value (GLOB). See `tool-map query tools --help`."],
      [["query", "tools", "--name", "--json"], "--name needs a value (GLOB), not the option --json."],
      [
        ["query", "agents", "--host", "claud"],
        "--host does not take 'claud' (did you mean claude-code?). Valid: claude-code, codex, cursor, gemini, opencode."
      ],
      [["catalog", "find", "issues", "-k", "many"], "-k takes a whole number, not 'many'. See `tool-map catalog find --help`."],
      [["query", "which"], "`tool-map query which` needs NAME. See `tool-map query which --help`."],
      [["query", "which", "git", "node"], "`tool-map query which` takes NAME only, but got another argument 'node'."],
      [["query"], "`tool-map query` needs a command. Valid: tools, which"]
    ]
    for (const [args, expected] of cases) {
      it(`tool-map ${args.join(" ")}`, () => {
        const run = runCli(args, env)
        expect([run.status, run.stdout]).toEqual([2, ""])
        expect(run.stderr.startsWith("tool-map: ")).toBe(true)
        expect(run.stderr.endsWith("\n")).toBe(true)
        expect(run.stderr.split("\n").length).toBe(2)
        expect(run.stderr).toContain(expected)
      })
    }

    it("names nothing it did not get: no data dir is made by a refused line", () => {
      runCli(["query", "frob"], env)
      expect(fs.existsSync(env.PLUGIN_DATA!)).toBe(false)
    })
  })

  it("--wizard without a terminal on stdin is refused at once (exit 2)", () => {
    const started = Date.now()
    const run = runCli(["--wizard"], env)
    expect([run.status, run.stdout]).toEqual([2, ""])
    expect(run.stderr).toBe(
      "tool-map: --wizard asks its questions on a terminal, and stdin is not one: give the command and its options on the line. See `tool-map --help`.\n"
    )
    expect(Date.now() - started).toBeLessThan(20_000)
    const sub = runCli(["query", "which", "--wizard"], env)
    expect([sub.status, sub.stderr.endsWith("See `tool-map query which --help`.\n")]).toEqual([2, true])
  })

  it("--version prints the version alone", () => {
    const version = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../package.json"), "utf8")).version
    expect(runCli(["--version"], env)).toEqual({ status: 0, stdout: `${version}\n`, stderr: "" })
  })

  describe("stdout that cannot be written", () => {
    it("> /dev/full: a message on stderr and exit 74", () => {
      expect(runCli(["scan", "--quiet", "--no-probes"], { ...env, PATH: binDir }).status).toBe(0)
      const full = fs.openSync("/dev/full", "w")
      try {
        // The PATH the bundle was scanned with: no stale-answer note on stderr.
        const run = spawnSync(process.execPath, [BIN, "query", "versions"], { env: { ...env, PATH: binDir }, stdio: ["ignore", full, "pipe"], encoding: "utf8" })
        expect(run.status).toBe(74)
        expect(run.stderr).toBe("tool-map: cannot write to standard output (ENOSPC): ENOSPC: no space left on device, write\n")
      } finally {
        fs.closeSync(full)
      }
    })

    it("a closed pipe (| head -1): quiet, exit 0", async () => {
      // The reader is gone before the CLI writes its first line.
      const child = spawn(process.execPath, [BIN, "query", "tools"], { env: { ...env, PATH: binDir }, stdio: ["ignore", "pipe", "pipe"] })
      child.stdout.destroy()
      let stderr = ""
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8")
      })
      const status = await new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      expect([status, stderr]).toEqual([0, ""])
    })
  })

  it("--from a missing file is an error that writes nothing", () => {
    const work = path.join(temp.dir, "from-work")
    fs.mkdirSync(work)
    const data = path.join(temp.dir, "from-data")
    const run = runCli(["query", "tools", "--from", "typo.md"], { ...env, PLUGIN_DATA: data }, work)
    expect(run.status).toBe(4)
    expect(run.stdout).toBe("")
    expect(run.stderr).toBe(
      `tool-map: Cannot read the tool-map bundle at typo.md: there is no tool-map bundle there (${path.join(work, "typo.json")} does not exist). --from only reads a bundle; write one with \`tool-map scan ${path.join(work, "typo.md")}\`\n`
    )
    expect(fs.readdirSync(work)).toEqual([])
    expect(fs.existsSync(data)).toBe(false)
    for (const args of [["export", "claude-v1", "--from", "typo.md"], ["query", "stale", "--from", "typo.md"]]) {
      expect(runCli(args, { ...env, PLUGIN_DATA: data }, work).status).toBe(4)
    }
    expect(fs.readdirSync(work)).toEqual([])
    expect(fs.existsSync(data)).toBe(false)
  })

  it("an empty or relative HOME is refused rather than writing under the working directory", () => {
    const work = path.join(temp.dir, "home-work")
    fs.mkdirSync(work)
    for (const home of ["", "relative-home"]) {
      const bare: Record<string, string> = { HOME: home, PATH: env.PATH!, LANG: "C.UTF-8" }
      for (const args of [["scan"], ["query", "tools"], ["catalog", "ls"]]) {
        const run = runCli(args, bare, work)
        expect([args, run.status, run.stdout]).toEqual([args, 2, ""])
        const dir = home === "" ? ".local/share/tool-map" : "relative-home/.local/share/tool-map"
        const why = home === "" ? "HOME is empty" : "HOME is the relative path relative-home"
        expect(run.stderr).toBe(
          `tool-map: Refusing to run: the data directory would be ${dir} under the working directory: ${why}. Set HOME (or XDG_DATA_HOME, or PLUGIN_DATA) to an absolute directory.\n`
        )
      }
      expect(fs.readdirSync(work)).toEqual([])
      // What needs no data dir still works.
      expect(runCli(["--version"], bare, work).status).toBe(0)
      expect(runCli(["query", "which", "--help"], bare, work).status).toBe(0)
    }
    // An absolute XDG_DATA_HOME gives an absolute data dir: allowed.
    const xdg = path.join(temp.dir, "xdg")
    const allowed = runCli(["scan", "--quiet", "--no-probes"], { HOME: "", XDG_DATA_HOME: xdg, PATH: binDir, LANG: "C.UTF-8" }, work)
    expect(allowed.status).toBe(0)
    expect(fs.readdirSync(path.join(xdg, "tool-map")).sort()).toEqual(["tools.json", "tools.md", "tools.summary.md", "tools.which.jsonl"])
  })

  it("query tools --name says by which name a tool matched", () => {
    const target = path.join(temp.dir, "named", "inv.md")
    expect(runCli(["scan", target, "--quiet", "--no-probes"], { ...env, PATH: binDir }).status).toBe(0)
    // A bundle of a tool-map that recorded another name of a file as an alias (alsoAt) of its record.
    const json = path.join(path.dirname(target), "inv.json")
    const inventory = JSON.parse(fs.readFileSync(json, "utf8"))
    const gitk = inventory.tools.find((tool: { name: string }) => tool.name === "gitk")
    inventory.tools = [{ ...gitk, name: "agetty", path: path.join(binDir, "agetty"), alsoAt: [path.join(binDir, "getty")] }, gitk]
    fs.writeFileSync(json, JSON.stringify(inventory))
    const table = runCli(["query", "tools", "--name", "g*", "--from", target], env)
    expect(table.status).toBe(0)
    expect(table.stdout.split("\n").slice(2, 4).map((line) => line.split("  ")[0])).toEqual(["agetty (matched as getty)", "gitk"])
    const listed = JSON.parse(runCli(["query", "tools", "--name", "g*", "--from", target, "--json"], env).stdout).tools
    expect(listed.map((tool: { name: string; matchedName: string }) => [tool.name, tool.matchedName])).toEqual([["agetty", "getty"], ["gitk", "gitk"]])
    const unfiltered = JSON.parse(runCli(["query", "tools", "--from", target, "--json"], env).stdout).tools
    expect(unfiltered.map((tool: object) => "matchedName" in tool)).toEqual([false, false])
  })

  it("tables align names of CJK, emoji and combining characters by display width", () => {
    const wideDir = path.join(temp.dir, "wide-bin")
    const names = ["工具", "🔧fix", "cafe\u0301", "plain"]
    for (const name of names) writeExecutable(path.join(wideDir, name))
    const target = path.join(temp.dir, "wide", "inv.md")
    expect(runCli(["scan", target, "--quiet", "--no-probes"], { ...env, PATH: wideDir }).status).toBe(0)
    const run = runCli(["query", "tools", "--from", target], env)
    expect(run.status).toBe(0)
    const lines = run.stdout.trimEnd().split("\n")
    // Where the category column starts on the header line; every row's name is padded to it.
    const categoryColumn = displayWidth(lines[0]!.slice(0, lines[0]!.indexOf("category")))
    const rows = lines.slice(2).filter((line) => names.some((name) => line.startsWith(`${name} `)))
    expect(rows.length).toBe(4)
    for (const row of rows) {
      const name = names.find((candidate) => row.startsWith(`${candidate} `))!
      const rest = row.slice(name.length)
      expect([name, displayWidth(name) + rest.length - rest.trimStart().length]).toEqual([name, categoryColumn])
    }
  })

  describe("completion scripts, sourced in each shell", () => {
    const schemas = () => {
      const file = path.join(temp.dir, "schemas.json")
      fs.writeFileSync(file, JSON.stringify([
        { name: "mcp__github__create_issue", description: "Create an issue in a repository", inputSchema: { type: "object" } },
        { name: "mcp__github__list_issues", description: "List the issues of a repository", inputSchema: { type: "object" } },
        { name: "mcp__slack__post_message", description: "Post a message to a channel", inputSchema: { type: "object" } }
      ]))
      return file
    }

    beforeAll(() => {
      // A catalog kept in the data dir, as after `catalog ls --schemas FILE`.
      expect(runCli(["catalog", "ls", "/", "--schemas", schemas()], env).status).toBe(0)
    })

    const categoryPaths = () =>
      JSON.parse(runCli(["catalog", "ls", "/", "--json"], env).stdout).categories.map((category: { path: string }) => category.path)

    const bash = (words: ReadonlyArray<string>) =>
      execFileSync("bash", ["--norc", "-c", [
        "source <(tool-map --completions bash)",
        `COMP_WORDS=(${words.map((word) => `'${word}'`).join(" ")})`,
        `COMP_CWORD=${words.length - 1}`,
        "_tool_map_complete",
        "printf '%s\\n' \"${COMPREPLY[@]}\""
      ].join("\n")], { env, encoding: "utf8", cwd: temp.dir }).split("\n").filter((line) => line !== "")

    it("bash: subcommands at every depth, flags, flag values, files and catalog paths", () => {
      expect(bash(["tool-map", ""])).toEqual(["scan", "query", "export", "catalog", "mcp", "gateway"])
      expect(bash(["tool-map", "query", "wh"])).toEqual(["which"])
      expect(bash(["tool-map", "scan", "--"])).toEqual(["--if-stale", "--force", "--no-probes", "--json", "--quiet", "--help"])
      expect(bash(["tool-map", "query", "agents", "--source", ""])).toEqual(["local", "plugin-root", "plugin-nested"])
      expect(bash(["tool-map", "query", "mcp", "--scope", "p"])).toEqual(["project", "plugin"])
      expect(bash(["tool-map", "query", "skills", "--host", "c"])).toEqual(["claude-code", "codex", "cursor"])
      expect(bash(["tool-map", "query", "which", "--from", "sche"])).toEqual(["schemas.json"])
      expect(bash(["tool-map", "catalog", "load", "mcp__github__c"])).toEqual(["mcp__github__create_issue"])
      expect(bash(["tool-map", "catalog", "unload", "al"])).toEqual(["all"])
      const paths = bash(["tool-map", "catalog", "ls", "/"])
      for (const category of categoryPaths()) expect(paths).toContain(category)
    })

    it("zsh: the same answers through compadd, _files for file values", () => {
      const zsh = (words: ReadonlyArray<string>) =>
        execFileSync("zsh", ["-f", "-c", [
          "compdef() { :; }",
          "compadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done; [[ $1 == -- ]] && shift; print -rl -- \"$@\"; }",
          "_files() { print -r -- '(files)'; }",
          "source <(tool-map --completions zsh)",
          `words=(${words.map((word) => `'${word}'`).join(" ")})`,
          `CURRENT=${words.length}`,
          "_tool_map"
        ].join("\n")], { env, encoding: "utf8" }).split("\n").filter((line) => line !== "")
      expect(zsh(["tool-map", "q"])).toEqual(["query"])
      expect(zsh(["tool-map", "catalog", "f"])).toEqual(["find"])
      expect(zsh(["tool-map", "query", "agents", "--re"])).toEqual(["--read-only"])
      expect(zsh(["tool-map", "query", "agents", "--scope", ""])).toEqual(["user", "project", "local", "managed", "plugin", "builtin"])
      expect(zsh(["tool-map", "catalog", "ls", "--schemas", ""])).toEqual(["(files)"])
      expect(zsh(["tool-map", "catalog", "load", "mcp__slack"])).toEqual(["mcp__slack__post_message"])
    })

    it("fish: complete -C gives the candidates with their descriptions", () => {
      const fish = (line: string) =>
        execFileSync("fish", ["--no-config", "-c", `tool-map --completions fish | source; complete -C '${line}'`], { env, encoding: "utf8" })
          .split("\n").filter((entry) => entry !== "")
      expect(fish("tool-map query wh")).toEqual(["which\tEvery copy of NAME on PATH, the one that wins, its version"])
      expect(fish("tool-map export ")).toEqual(["claude-v1\tThe Claude Code inventory in the seed's v1 JSON schema"])
      expect(fish("tool-map query plugins --host g")).toEqual(["gemini"])
      expect(fish("tool-map catalog unload mcp__github__l")).toEqual(["mcp__github__list_issues"])
    })

    /**
     * A tmux server of this test's own (its socket in the temp dir, no user config), kept up between sessions: the default
     * server exits with its last session, and a session started at that moment failed with
     * "server exited unexpectedly".
     */
    const tmux = (...args: ReadonlyArray<string>) =>
      execFileSync("tmux", ["-S", path.join(temp.dir, "tmux.sock"), "-f", "/dev/null", ...args], { encoding: "utf8" })

    /**
     * Types `typed` and TAB into an interactive shell in tmux, with the script loaded as the
     * README says, and returns the screen once a line of it is `expected` (or after 30 s).
     */
    const typeTab = async (shell: "bash" | "zsh", typed: string, expected: string): Promise<string> => {
      const rc = path.join(temp.dir, `rc-${shell}`)
      fs.mkdirSync(rc, { recursive: true })
      const session = `tool-map-${shell}-${process.pid}`
      const base = `env -i HOME=${rc} PATH=${env.PATH} PLUGIN_DATA=${env.PLUGIN_DATA} LANG=C.UTF-8 TERM=xterm`
      if (shell === "zsh") {
        fs.writeFileSync(path.join(rc, ".zshrc"), "autoload -U compinit && compinit -u\neval \"$(tool-map --completions zsh)\"\nPS1='%% '\n")
      } else {
        fs.writeFileSync(path.join(rc, ".bashrc"), "eval \"$(tool-map --completions bash)\"\nPS1='$ '\n")
      }
      const command = shell === "zsh" ? `${base} ZDOTDIR=${rc} zsh -i` : `${base} bash --rcfile ${path.join(rc, ".bashrc")} -i`
      tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "20", command)
      try {
        const screen = async (until: (text: string) => boolean) => {
          let text = ""
          for (let waited = 0; waited < 30_000 && !until(text); waited += 200) {
            await new Promise((resolve) => setTimeout(resolve, 200))
            text = tmux("capture-pane", "-t", session, "-p")
          }
          return text
        }
        await screen((text) => /^[%$]$/m.test(text))
        tmux("send-keys", "-t", session, typed, "Tab")
        // tmux drops the trailing spaces of a line: the completed line is compared without them.
        return await screen((text) => text.split("\n").includes(expected))
      } finally {
        tmux("kill-session", "-t", session)
      }
    }

    it("bash and zsh, interactive, complete a line on TAB (tmux)", async () => {
      tmux("start-server", ";", "set-option", "-g", "exit-empty", "off")
      onTestFinished(() => {
        tmux("kill-server")
      })
      for (const shell of ["bash", "zsh"] as const) {
        const prompt = shell === "zsh" ? "%" : "$"
        for (const [typed, completed] of [
          ["tool-map query wh", "tool-map query which"],
          ["tool-map query agents --host cl", "tool-map query agents --host claude-code"],
          ["tool-map catalog load mcp__slack", "tool-map catalog load mcp__slack__post_message"]
        ] as const) {
          const line = `${prompt} ${completed}`
          expect([shell, (await typeTab(shell, typed, line)).split("\n").includes(line)]).toEqual([shell, true])
        }
      }
    }, 180_000)

    it("--completions names the shells it knows", () => {
      const run = runCli(["--completions", "powershell"], env)
      expect(run.status).toBe(2)
      expect(run.stderr).toBe("tool-map: --completions does not take 'powershell'. Valid: bash, zsh, fish. See `tool-map --help`.\n")
    })
  })
})
