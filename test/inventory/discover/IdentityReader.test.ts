import { FileSystem } from "@effect/platform"
import { SystemError } from "@effect/platform/Error"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as NodePath from "node:path"
import { Diagnostic, Identity } from "../../../src/inventory/domain/inventory.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import { GITCONFIG_READ_CAP, IdentityReader, parseGitUser } from "../../../src/inventory/discover/IdentityReader.js"

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

const readIdentity = (home: string, fsLayer: Layer.Layer<FileSystem.FileSystem>) =>
  Effect.flatMap(IdentityReader, (reader) => reader.read).pipe(
    Effect.provide(IdentityReader.layer.pipe(
      Layer.provide(Layer.merge(fsLayer, MachineEnvironment.layerTest({ os: "linux", homedir: home })))
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
        diagnostics: []
      })
      expect(JSON.stringify(result)).not.toMatch(/CANARY|ghp_/)
      // Only ~/.gitconfig was stat'ed and opened; nothing under ~/.ssh was.
      expect(touched).toEqual([NodePath.join(home, ".gitconfig"), NodePath.join(home, ".gitconfig")])
    }))

  it.scoped("is content with a home that has neither file", () =>
    Effect.gen(function*() {
      const home = yield* makeHome({})
      expect(yield* readIdentity(home, recordingFs([]))).toEqual({
        identity: new Identity({ gitUserName: null, gitUserEmail: null, sshFiles: [] }),
        diagnostics: []
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
        ]
      })
      expect(JSON.stringify(result)).not.toContain("ghp_")
    }))

  it.scoped("reports malformed lines by number, never their text", () =>
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
        identity: new Identity({ gitUserName: null, gitUserEmail: "ok@example.com", sshFiles: [] }),
        diagnostics: [1, 4, 6].map((line) =>
          gitDiagnostic(home, "malformed line; git itself would reject this file", line)
        )
      })
    }))

  it.scoped("reads at most 256 KiB of a huge ~/.gitconfig", () =>
    Effect.gen(function*() {
      const padding = "# padding padding padding padding padding padding padding\n".repeat(5000)
      const home = yield* makeHome({ ".gitconfig": `[user]\n\tname = Early\n${padding}[user]\n\tname = Late\n` })
      expect(padding.length).toBeGreaterThan(GITCONFIG_READ_CAP)
      expect(yield* readIdentity(home, recordingFs([]))).toEqual({
        identity: new Identity({ gitUserName: "Early", gitUserEmail: null, sshFiles: [] }),
        diagnostics: [gitDiagnostic(home, "larger than 262144 bytes; only the start was read")]
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
        ]
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
        ]
      })
    }))
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

  it("treats a bare user.name as malformed and ignores subsections of user", () => {
    expect(parseGitUser("[user]\n\tname\n[user \"x\"]\n\temail = sub@example.com\n")).toEqual({
      name: null,
      email: null,
      malformedLines: [2]
    })
  })

  it("does not keep anything outside [user]", () => {
    const parsed = parseGitUser(`[url "https://alice:${token}@host/"]\n\tinsteadOf = https://host/\n[http]\n\textraHeader = Authorization: ${token}\n`)
    expect(parsed).toEqual({ name: null, email: null, malformedLines: [] })
  })
})
