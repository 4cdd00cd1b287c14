import { FileSystem } from "@effect/platform"
import { SystemError } from "@effect/platform/Error"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Layer } from "effect"
import { spawnSync } from "node:child_process"
import * as NodePath from "node:path"
import { Diagnostic, Identity } from "../../../src/inventory/domain/inventory.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { GITCONFIG_READ_CAP, gitConfigFiles, IdentityReader, parseGitUser } from "../../../src/inventory/discover/IdentityReader.js"

const token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

/** The live FileSystem, with every path it opens, reads or stats recorded. */
const recordingFs = (touched: Array<string>, overrides: Partial<FileSystem.FileSystem> = {}) =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fs) =>
      FileSystem.FileSystem.of({
        ...fs,
        stat: (path) => Effect.suspend(() => {
          touched.push(path)
          return fs.stat(path)
        }),
        open: (path, options) => Effect.suspend(() => {
          touched.push(path)
          return fs.open(path, options)
        }),
        readFile: (path) => Effect.suspend(() => {
          touched.push(path)
          return fs.readFile(path)
        }),
        readFileString: (path, encoding) => Effect.suspend(() => {
          touched.push(path)
          return fs.readFileString(path, encoding)
        }),
        ...overrides
      }))
  ).pipe(Layer.provide(NodeFileSystem.layer))

const readIdentity = (home: string, fsLayer: Layer.Layer<FileSystem.FileSystem>, env: Readonly<Record<string, string>> = {}) =>
  Effect.flatMap(IdentityReader, (reader) => reader.read).pipe(
    Effect.provide(IdentityReader.layer.pipe(
      Layer.provide(Layer.merge(fsLayer, MachineEnvironment.layerTest({ os: "linux", homedir: home, cwd: home, env })))
    ))
  )

/** A fresh HOME with the given files (paths relative to it; a trailing "/" makes a directory). */
const makeHome = (files: Record<string, string>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const home = yield* fs.makeTempDirectoryScoped()
    for (const [relative, content] of Object.entries(files)) {
      const path = NodePath.join(home, relative)
      yield* fs.makeDirectory(relative.endsWith("/") ? path : NodePath.dirname(path), { recursive: true })
      if (!relative.endsWith("/")) yield* fs.writeFileString(path, content, { mode: 0o600 })
    }
    return home
  }).pipe(Effect.provide(NodeFileSystem.layer))

/** What a reading of a home with no includes watches: git's two files and ~/.ssh. */
const watchedIn = (home: string) => [NodePath.join(home, ".config/git/config"), NodePath.join(home, ".gitconfig"), NodePath.join(home, ".ssh")]

const gitDiagnostic = (home: string, message: string, line: number | null = null) =>
  new Diagnostic({ source: "identity", path: NodePath.join(home, ".gitconfig"), line, message })

describe("IdentityReader", () => {
  it.scoped("reads user.name and user.email only, and the ~/.ssh file names without opening them", () =>
    Effect.gen(function*() {
      const home = yield* makeHome({
        ".gitconfig": [
          "# my config",
          "[core]",
          "\teditor = vim",
          "[User]",
          "\tName = Jane Doe",
          "\tEMAIL = jane@example.com ; work address",
          "[url \"https://alice:CANARY-url-secret@git.example.com/\"]",
          "\tinsteadOf = https://git.example.com/",
          "[credential]",
          `\thelper = store --token ${token}`,
          "[user \"work\"]",
          "\tname = Not Me",
          "[user.old]",
          "\temail = not-me@example.com"
        ].join("\n"),
        ".ssh/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\nCANARY-key-body\n-----END OPENSSH PRIVATE KEY-----\n",
        ".ssh/id_ed25519.pub": "ssh-ed25519 AAAA CANARY-pub",
        ".ssh/known_hosts": "github.com ssh-ed25519 AAAA",
        ".ssh/config": "Host *\n  IdentityFile ~/.ssh/id_ed25519\n"
      })
      const touched: Array<string> = []
      const result = yield* readIdentity(home, recordingFs(touched))
      expect(result).toEqual({
        identity: new Identity({
          gitUserName: "Jane Doe",
          gitUserEmail: "jane@example.com",
          sshFiles: ["config", "id_ed25519", "id_ed25519.pub", "known_hosts"]
        }),
        diagnostics: [],
        watched: watchedIn(home)
      })
      expect(JSON.stringify(result)).not.toMatch(/CANARY|ghp_/)
      // Only git's two files were stat'ed and the one there opened (the bounded read stats it again); nothing under ~/.ssh was.
      expect(touched).toEqual([NodePath.join(home, ".config/git/config"), NodePath.join(home, ".gitconfig"), NodePath.join(home, ".gitconfig"), NodePath.join(home, ".gitconfig")])
    }))

  it.scoped("is content with a home that has neither file", () =>
    Effect.gen(function*() {
      const home = yield* makeHome({})
      expect(yield* readIdentity(home, recordingFs([]))).toEqual({
        identity: new Identity({ gitUserName: null, gitUserEmail: null, sshFiles: [] }),
        diagnostics: [],
        watched: watchedIn(home)
      })
    }))

  it.scoped("drops a value that looks like a secret, with a diagnostic that does not repeat it", () =>
    Effect.gen(function*() {
      const home = yield* makeHome({
        ".gitconfig": `[user]\n\tname = Jane\n\temail = ${token}\n`,
        [`.ssh/${token}`]: "x"
      })
      const result = yield* readIdentity(home, recordingFs([]))
      expect(result).toEqual({
        identity: new Identity({ gitUserName: "Jane", gitUserEmail: null, sshFiles: [] }),
        diagnostics: [
          gitDiagnostic(home, "user.email looks like a secret; not recorded"),
          new Diagnostic({
            source: "identity",
            path: NodePath.join(home, ".ssh"),
            line: null,
            message: "1 file name(s) look like secrets; not recorded"
          })
        ],
        watched: watchedIn(home)
      })
      expect(JSON.stringify(result)).not.toContain("ghp_")
    }))

  it.scoped("reports malformed lines by number, never their text; git then refuses the file, so there is no name or email", () =>
    Effect.gen(function*() {
      const home = yield* makeHome({
        ".gitconfig": [
          "[user",
          "name = Outside",
          "[user]",
          "\tname = \"unterminated",
          "\temail = ok@example.com",
          "\tbad line here!"
        ].join("\n")
      })
      expect(yield* readIdentity(home, recordingFs([]))).toEqual({
        identity: new Identity({ gitUserName: null, gitUserEmail: null, sshFiles: [] }),
        diagnostics: [
          ...[1, 4, 6].map((line) => gitDiagnostic(home, "malformed line; git itself would reject this file", line)),
          gitDiagnostic(home, "git rejects its configuration (a malformed line): no user name or email", 1)
        ],
        watched: watchedIn(home)
      })
    }))

  it.scoped("reads at most 256 KiB of a huge ~/.gitconfig", () =>
    Effect.gen(function*() {
      const padding = "# padding padding padding padding padding padding padding\n".repeat(5000)
      const home = yield* makeHome({ ".gitconfig": `[user]\n\tname = Early\n${padding}[user]\n\tname = Late\n` })
      expect(padding.length).toBeGreaterThan(GITCONFIG_READ_CAP)
      expect(yield* readIdentity(home, recordingFs([]))).toEqual({
        identity: new Identity({ gitUserName: "Early", gitUserEmail: null, sshFiles: [] }),
        diagnostics: [gitDiagnostic(home, "larger than 262144 bytes; only the start was read")],
        watched: watchedIn(home)
      })
    }))

  it.scoped("records a ~/.gitconfig that is a directory and a ~/.ssh that is a file", () =>
    Effect.gen(function*() {
      const home = yield* makeHome({ ".gitconfig/": "", ".ssh": "not a dir" })
      expect(yield* readIdentity(home, recordingFs([]))).toEqual({
        identity: new Identity({ gitUserName: null, gitUserEmail: null, sshFiles: [] }),
        diagnostics: [
          gitDiagnostic(home, "not a regular file; not read"),
          new Diagnostic({ source: "identity", path: NodePath.join(home, ".ssh"), line: null, message: "cannot list: BadResource" })
        ],
        watched: watchedIn(home)
      })
    }))

  it.scoped("turns injected file system faults into diagnostics", () =>
    Effect.gen(function*() {
      const home = yield* makeHome({ ".gitconfig": "[user]\n\tname = Jane\n", ".ssh/config": "" })
      const fault = (method: string) => (path: string) =>
        Effect.fail(new SystemError({ reason: "PermissionDenied", module: "FileSystem", method, pathOrDescriptor: path }))
      const result = yield* readIdentity(
        home,
        recordingFs([], { open: (path) => fault("open")(path), readDirectory: (path) => fault("readDirectory")(path) })
      )
      expect(result).toEqual({
        identity: new Identity({ gitUserName: null, gitUserEmail: null, sshFiles: [] }),
        diagnostics: [
          gitDiagnostic(home, "cannot read: PermissionDenied"),
          new Diagnostic({
            source: "identity",
            path: NodePath.join(home, ".ssh"),
            line: null,
            message: "cannot list: PermissionDenied"
          })
        ],
        watched: watchedIn(home)
      })
    }))
})

/** `[name, email]` of a reading, and its diagnostics as `[file relative to home, line, message]`. */
const userOf = (home: string, env: Readonly<Record<string, string>> = {}) =>
  Effect.map(readIdentity(home, NodeFileSystem.layer, env), (result) => ({
    user: [result.identity.gitUserName, result.identity.gitUserEmail],
    diagnostics: result.diagnostics.map((diagnostic) => [NodePath.relative(home, diagnostic.path ?? ""), diagnostic.line, diagnostic.message])
  }))

const user = (name: string | null, email: string | null = null) => [name, email]

describe("IdentityReader: git's own files and includes (issue 12, finding 7; git 2.39)", () => {
  it("the files: $GIT_CONFIG_GLOBAL alone, else $XDG_CONFIG_HOME/git/config (~/.config/git/config) then ~/.gitconfig", () => {
    const host = (env: Record<string, string>) => ({ ...MachineEnvironment.live, os: "linux" as const, homedir: "/h", cwd: "/w", env })
    expect(gitConfigFiles(host({}))).toEqual(["/h/.config/git/config", "/h/.gitconfig"])
    expect(gitConfigFiles(host({ XDG_CONFIG_HOME: "" }))).toEqual(["/h/.config/git/config", "/h/.gitconfig"])
    expect(gitConfigFiles(host({ XDG_CONFIG_HOME: "/x" }))).toEqual(["/x/git/config", "/h/.gitconfig"])
    expect(gitConfigFiles(host({ XDG_CONFIG_HOME: "rel" }))).toEqual(["/w/rel/git/config", "/h/.gitconfig"])
    expect(gitConfigFiles(host({ GIT_CONFIG_GLOBAL: "/g", XDG_CONFIG_HOME: "/x" }))).toEqual(["/g"])
    expect(gitConfigFiles(host({ GIT_CONFIG_GLOBAL: "" }))).toEqual([])
  })

  it.scoped("~/.gitconfig wins over the XDG file key by key; the XDG file alone is read too", () =>
    Effect.gen(function*() {
      const both = yield* makeHome({
        ".config/git/config": "[user]\n\tname = Xdg\n\temail = xdg@example.com\n",
        ".gitconfig": "[user]\n\tname = Home\n"
      })
      expect(yield* userOf(both)).toEqual({ user: user("Home", "xdg@example.com"), diagnostics: [] })
      const xdgOnly = yield* makeHome({ ".config/git/config": "[user]\n\tname = Xdg\n" })
      expect(yield* userOf(xdgOnly)).toEqual({ user: user("Xdg"), diagnostics: [] })
      const elsewhere = yield* makeHome({ "cfg/git/config": "[user]\n\tname = Moved\n", ".config/git/config": "[user]\n\tname = Default\n" })
      expect(yield* userOf(elsewhere, { XDG_CONFIG_HOME: NodePath.join(elsewhere, "cfg") })).toEqual({ user: user("Moved"), diagnostics: [] })
      const global = yield* makeHome({ "g.cfg": "[user]\n\tname = Global\n", ".gitconfig": "[user]\n\tname = Home\n\temail = h@example.com\n" })
      expect(yield* userOf(global, { GIT_CONFIG_GLOBAL: NodePath.join(global, "g.cfg") })).toEqual({ user: user("Global"), diagnostics: [] })
      // An empty value later wins too: git prints an empty name.
      const emptied = yield* makeHome({ ".config/git/config": "[user]\n\tname = Xdg\n", ".gitconfig": "[user]\n\tname =\n" })
      expect(yield* userOf(emptied)).toEqual({ user: user(null), diagnostics: [] })
    }))

  it.scoped("[include] path: in place, relative to the including file, ~/ is the home, quoted, nested, a missing file is nothing", () =>
    Effect.gen(function*() {
      const home = yield* makeHome({
        ".gitconfig": "[user]\n\tname = Before\n[include]\n\tpath = a/one\n\tpath = \"~/with space\"\n\tPATH = missing\n[user]\n\temail = after@example.com\n",
        "a/one": "[include]\n\tpath = b/two\n[user]\n\temail = one@example.com\n",
        "a/b/two": "[user]\n\tname = Two\n",
        "with space": "[user]\n\temail = space@example.com\n\tname = Space\n"
      })
      expect(yield* userOf(home)).toEqual({ user: user("Space", "after@example.com"), diagnostics: [] })
      // Every file looked at is watched, the missing include too: creating it changes the identity.
      const { watched } = yield* readIdentity(home, NodeFileSystem.layer)
      expect(watched.map((file) => NodePath.relative(home, file))).toEqual([".config/git/config", ".gitconfig", "a/one", "a/b/two", "with space", "missing", ".ssh"])
      // From the XDG file, relative to its own directory.
      const xdg = yield* makeHome({ ".config/git/config": "[include]\n\tpath = sub/inc\n", ".config/git/sub/inc": "[user]\n\tname = XdgInc\n" })
      expect(yield* userOf(xdg)).toEqual({ user: user("XdgInc"), diagnostics: [] })
    }))

  it.scoped("what git skips: includeIf (its conditions need a repository), [include \"x\"], an include of ~user/", () =>
    Effect.gen(function*() {
      const home = yield* makeHome({
        ".gitconfig": "[includeIf \"gitdir:/\"]\n\tpath = inc\n[include \"x\"]\n\tpath = inc\n[include]\n\tpath = ~nobody/inc\n[user]\n\tname = Base\n",
        inc: "[user]\n\tname = Included\n"
      })
      expect(yield* userOf(home)).toEqual({
        user: user("Base"),
        diagnostics: [[".gitconfig", 6, "an include of another user's home (`~user/`) is not followed"]]
      })
    }))

  it.scoped("what makes git refuse its configuration: includes deeper than 10 (a loop), an include of a directory, a bare include.path, a malformed included file", () =>
    Effect.gen(function*() {
      const chain = (length: number) =>
        Object.fromEntries([
          [".gitconfig", "[include]\n\tpath = c1\n"],
          ...Array.from({ length }, (_, index) => [`c${index + 1}`, index + 1 === length ? "[user]\n\tname = Deep\n" : `[include]\n\tpath = c${index + 2}\n`])
        ])
      expect(yield* userOf(yield* makeHome(chain(10)))).toEqual({ user: user("Deep"), diagnostics: [] })
      expect(yield* userOf(yield* makeHome(chain(11)))).toEqual({
        user: user(null),
        diagnostics: [["c11", null, "git rejects its configuration (includes nest deeper than 10 (a loop?)): no user name or email"]]
      })
      // A missing file at that depth is nothing: git counts only the includes it can open.
      const { c11: _deepest, ...missingDeepest } = chain(11)
      expect(yield* userOf(yield* makeHome(missingDeepest))).toEqual({ user: user(null), diagnostics: [] })
      const loop = yield* makeHome({ ".gitconfig": "[user]\n\tname = Me\n[include]\n\tpath = .gitconfig\n" })
      expect(yield* userOf(loop)).toEqual({
        user: user(null),
        diagnostics: [[".gitconfig", null, "git rejects its configuration (includes nest deeper than 10 (a loop?)): no user name or email"]]
      })
      const directory = yield* makeHome({ ".gitconfig": "[user]\n\tname = Me\n[include]\n\tpath = dir\n", "dir/": "" })
      expect(yield* userOf(directory)).toEqual({
        user: user(null),
        diagnostics: [["dir", null, "git rejects its configuration (an include is not a regular file): no user name or email"]]
      })
      const bare = yield* makeHome({ ".gitconfig": "[user]\n\tname = Me\n[include]\n\tpath\n" })
      expect(yield* userOf(bare)).toEqual({
        user: user(null),
        diagnostics: [[".gitconfig", 4, "git rejects its configuration (`include.path` has no value): no user name or email"]]
      })
      const malformed = yield* makeHome({ ".gitconfig": "[user]\n\tname = Me\n[include]\n\tpath = bad\n", bad: "[user\n" })
      expect(yield* userOf(malformed)).toEqual({
        user: user(null),
        diagnostics: [
          ["bad", 1, "malformed line; git itself would reject this file"],
          ["bad", 1, "git rejects its configuration (a malformed line): no user name or email"]
        ]
      })
    }))

  it.scoped("a secret in an included file is not recorded, and the diagnostic names that file", () =>
    Effect.gen(function*() {
      const home = yield* makeHome({ ".gitconfig": "[include]\n\tpath = work.inc\n", "work.inc": `[user]\n\tname = Jane\n\temail = ${token}\n` })
      const result = yield* userOf(home)
      expect(result).toEqual({ user: user("Jane"), diagnostics: [["work.inc", null, "user.email looks like a secret; not recorded"]] })
      expect(JSON.stringify(result)).not.toContain("ghp_")
    }))
})

/** What git itself prints for the user's own configuration outside a repository: `git config --includes KEY`, no system file. */
const gitSays = (home: string, env: Readonly<Record<string, string>>, key: string): string | null => {
  const result = spawnSync("git", ["config", "--includes", key], {
    cwd: home,
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_NOSYSTEM: "1", ...env },
    encoding: "utf8"
  })
  const value = result.status === 0 ? result.stdout.replace(/\n$/, "") : ""
  return value === "" ? null : value
}

/** Lines config files are made of: the user's keys, includes (relative, ~/, missing, a loop), skipped sections, a rare bad line. */
const CONFIG_LINES = [
  "[user]", "\tname = Name One", "\tname = Name Two", "\temail = one@example.com", "\temail = two@example.com", "\tname =", "\tname",
  "[include]", "\tpath = a.inc", "\tpath = ~/b.inc", "\tpath = sub/c.inc", "\tpath = ../a.inc", "\tpath = missing.inc", "\tpath = .gitconfig",
  "[includeIf \"gitdir:/\"]", "[user \"x\"]", "[core]", "\teditor = vi", "# comment", "name = outside", "\tbad line!"
]

describe("IdentityReader agrees with git", () => {
  it.scopedLive.prop(
    "the name and email equal what `git config --includes user.name|user.email` prints (outside a repository, no system file)",
    [
      fc.record({
        files: fc.array(fc.array(fc.nat({ max: CONFIG_LINES.length - 1 }), { maxLength: 8 }), { minLength: 6, maxLength: 6 }),
        present: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        env: fc.constantFrom("default", "xdg", "xdg-empty", "global")
      })
    ],
    ([input]) =>
      Effect.gen(function*() {
        const names = [".gitconfig", ".config/git/config", "a.inc", "b.inc", "sub/c.inc", ".config/git/sub/c.inc"]
        const files = Object.fromEntries(
          names.flatMap((name, index) => (input.present[index] ? [[name, input.files[index]!.map((line) => CONFIG_LINES[line]).join("\n")]] : []))
        )
        const home = yield* makeHome({ ...files, "alt/git/": "", "xdg/git/config": files[".config/git/config"] ?? "" })
        const env: Record<string, string> = input.env === "xdg"
          ? { XDG_CONFIG_HOME: NodePath.join(home, "xdg") }
          : input.env === "xdg-empty"
          ? { XDG_CONFIG_HOME: "" }
          : input.env === "global"
          ? { GIT_CONFIG_GLOBAL: NodePath.join(home, "a.inc") }
          : {}
        const ours = yield* userOf(home, env)
        expect(ours.user).toEqual([gitSays(home, env, "user.name"), gitSays(home, env, "user.email")])
      }),
    { timeout: 120_000, fastCheck: { numRuns: 60 } }
  )
})

describe("parseGitUser", () => {
  it("follows git's syntax for sections, keys, quotes, escapes, comments and continuations", () => {
    expect(parseGitUser([
      "\uFEFF[user] name = \"Jane \\\"JJ\\\" Doe\"   # nickname",
      "\temail = first@example.com",
      "[USER]",
      "  EMAIL=second@example.com;comment",
      "[other]",
      "\tname = Not Me"
    ].join("\r\n"))).toEqual({ name: "Jane \"JJ\" Doe", email: "second@example.com", malformedLines: [] })

    expect(parseGitUser("[user]\n\tname = Jane \\\n\t  Doe\n")).toEqual({
      name: "Jane    Doe",
      email: null,
      malformedLines: []
    })
    expect(parseGitUser("[user]\n\tname = a#b\n\temail = \"x;y\"@example.com\n")).toEqual({
      name: "a",
      email: "x;y@example.com",
      malformedLines: []
    })
  })

  it("reads a bare user.name as git does (no value, not malformed) and ignores subsections of user", () => {
    expect(parseGitUser("[user]\n\tname = Jane\n\tname\n[user \"x\"]\n\temail = sub@example.com\n")).toEqual({
      name: null,
      email: null,
      malformedLines: []
    })
  })

  it("rejects a blank inside a section header, as git does", () => {
    expect(parseGitUser("[ user ]\n\tname = A\n[user ]\n")).toEqual({ name: null, email: null, malformedLines: [1, 3] })
  })

  it("does not keep anything outside [user]", () => {
    const parsed = parseGitUser(`[url "https://alice:${token}@host/"]\n\tinsteadOf = https://host/\n[http]\n\textraHeader = Authorization: ${token}\n`)
    expect(parsed).toEqual({ name: null, email: null, malformedLines: [] })
  })
})
