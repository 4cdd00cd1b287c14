import { Context, Effect, Either, Layer, Schema } from "effect"

/**
 * The file system port of the `Walker`: only the few read-only calls a walk needs, so a test
 * can serve a whole tree from memory or inject a fault (EACCES, a file that vanishes) at one
 * path without touching Node.
 *
 * Paths and names are JavaScript strings in a lossless form: a name that is valid UTF-8 is
 * unchanged; in a name that is not, every byte that cannot be decoded (0x80..0xFF) is kept as
 * the lone surrogate U+DC00 + byte, i.e. U+DC80..U+DCFF (the "surrogate escape" of PEP 383).
 * The form survives JSON (`"\udce9"`); `toPathBytes` turns it back into the exact bytes, and
 * live implementation does so before every call.
 */

/** The calls of the port, named in errors and faults. */
export const FsOp = Schema.Literal("readDirectory", "stat", "realpath", "readlink")
export type FsOp = typeof FsOp.Type

/** A call of the file system port failed; `code` is the errno code (ENOENT, EACCES, ELOOP…). */
export class WalkerFsError extends Schema.TaggedError<WalkerFsError>()("WalkerFsError", {
  op: FsOp,
  path: Schema.String,
  code: Schema.String
}) {
  get message() {
    return `${this.op} ${this.path}: ${this.code}`
  }
}

/** What a directory listing says an entry is (`unknown` on file systems without d_type). */
export type EntryKind = "file" | "directory" | "symlink" | "other" | "unknown"

/** One entry of a directory listing. */
export interface DirEntry {
  /** The name in lossless form (see the module comment). */
  readonly name: string
  readonly kind: EntryKind
  /** False when the name on disk is not valid UTF-8 (it then holds surrogate escapes). */
  readonly utf8: boolean
}

/** What a path is once symlinks are followed. */
export type NodeKind = "file" | "directory" | "other"

/** The stat facts the walker uses (symlinks followed). */
export interface FileStat {
  readonly kind: NodeKind
  readonly dev: number
  readonly ino: number
  readonly mode: number
  readonly uid: number
  readonly gid: number
  readonly size: number
  readonly mtimeMs: number
}

/** One item of a batch: stat `path` (following links), and resolve its real path if asked. */
export interface InspectRequest {
  readonly path: string
  readonly realpath: boolean
}

/** A successful item of a batch: the stat and, when requested, the real path. */
export interface Inspected {
  readonly stat: FileStat
  readonly realPath: string | null
}

/** The ids the kernel checks execute permission against; null where POSIX ids do not exist. */
export interface UserIdentity {
  readonly uid: number
  readonly gid: number
  readonly groups: ReadonlyArray<number>
}

/** The operations of the port. */
export interface WalkerFsShape {
  /** Effective user of the process (the executable test needs it), or null (Windows). */
  readonly user: UserIdentity | null
  /** The entries of a directory (following a link at `path`), unsorted. */
  readonly readDirectory: (path: string) => Effect.Effect<ReadonlyArray<DirEntry>, WalkerFsError>
  /** stat(2): follows symlinks. */
  readonly stat: (path: string) => Effect.Effect<FileStat, WalkerFsError>
  /** The canonical absolute path with every link resolved. */
  readonly realpath: (path: string) => Effect.Effect<string, WalkerFsError>
  /** The target text of a symlink. */
  readonly readlink: (path: string) => Effect.Effect<string, WalkerFsError>
  /**
   * Stat (and realpath) a batch with bounded concurrency; one Effect per directory instead of
   * one per file. Each item succeeds or fails on its own; results keep the request order.
   */
  readonly inspectAll: (
    requests: ReadonlyArray<InspectRequest>
  ) => Effect.Effect<ReadonlyArray<Either.Either<Inspected, WalkerFsError>>>
}

/** A fault to inject: the call `op` on `path` fails with errno `code`. */
export interface FsFault {
  readonly op: FsOp
  readonly path: string
  readonly code: string
}

/** A node of an in-memory tree for `WalkerFs.layerMemory`; parent directories are implied. */
export type MemoryNode =
  | {
    readonly type: "file"
    readonly mode?: number
    readonly uid?: number
    readonly gid?: number
    readonly size?: number
    readonly mtimeMs?: number
  }
  | { readonly type: "dir"; readonly mode?: number }
  | { readonly type: "symlink"; readonly target: string }
  /** A second name of the node at `to` (same inode). */
  | { readonly type: "hardlink"; readonly to: string }
  /** A fifo, socket or device. */
  | { readonly type: "other" }

/** An in-memory file system: absolute paths in the style of `os` mapped to nodes. */
export interface MemoryTree {
  /** Path syntax: POSIX, or Windows (drive letters, `\`, case-insensitive names). */
  readonly style?: "posix" | "win32"
  readonly nodes: Readonly<Record<string, MemoryNode>>
  /** Defaults to uid 1000, gid 1000, no extra groups; null for Windows. */
  readonly user?: UserIdentity | null
  readonly faults?: ReadonlyArray<FsFault>
  /** Report every entry kind as `unknown`, like a file system without d_type. */
  readonly unknownEntryKinds?: boolean
  /** Symlinks followed before ELOOP (Linux: 40). */
  readonly maxSymlinks?: number
}

/** How many stats a batch keeps in flight. */
export const DEFAULT_INSPECT_CONCURRENCY = 64

/**
 * The file system port of the `Walker` (inventory/discover). It lives on the platform floor with
 * its live implementation over `node:fs`, the shim `NodeWalkerFs.ts` (`NodeWalkerFs.layer`),
 * below the walker that uses it (docs/layout.md, "The floors").
 */
export class WalkerFs extends Context.Tag("tool-map/WalkerFs")<WalkerFs, WalkerFsShape>() {
  /** Over a tree held in memory (any OS style), faults included. */
  static readonly layerMemory = (tree: MemoryTree) => Layer.sync(this, () => makeMemoryWalkerFs(tree))
}

const ANY_SURROGATE = /[\uD800-\uDFFF]/
const LONE_ESCAPE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/

/** True when a lossless string holds surrogate-escaped bytes (its bytes are not UTF-8). */
export const hasEscapedBytes = (text: string): boolean => ANY_SURROGATE.test(text) && LONE_ESCAPE.test(text)

/** Decode bytes from the file system into the lossless string form. */
export const fromPathBytes = (bytes: Uint8Array): string => {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const text = buffer.toString("utf8")
  // A U+FFFD in the decoded text is either in the name or marks an invalid byte.
  if (!text.includes("\uFFFD") || Buffer.from(text, "utf8").equals(buffer)) return text
  return decodeWithEscapes(buffer)
}

/** The exact bytes of a lossless string (the inverse of `fromPathBytes`). */
export const toPathBytes = (text: string): Buffer => {
  if (!hasEscapedBytes(text)) return Buffer.from(text, "utf8")
  const parts: Array<Buffer> = []
  for (const char of text) {
    const unit = char.charCodeAt(0)
    parts.push(
      char.length === 1 && unit >= 0xdc80 && unit <= 0xdcff
        ? Buffer.of(unit - 0xdc00)
        : Buffer.from(char, "utf8")
    )
  }
  return Buffer.concat(parts)
}

const isContinuation = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80

/** The length of the valid UTF-8 sequence at `at`, or 0 (Unicode 15, table 3-7). */
const sequenceLength = (bytes: Buffer, at: number): number => {
  const lead = bytes[at]!
  if (lead < 0x80) return 1
  const b1 = bytes[at + 1]
  if (lead >= 0xc2 && lead <= 0xdf) return isContinuation(b1) ? 2 : 0
  if (lead >= 0xe0 && lead <= 0xef) {
    if (b1 === undefined) return 0
    const ok1 = lead === 0xe0 ? b1 >= 0xa0 && b1 <= 0xbf : lead === 0xed ? b1 >= 0x80 && b1 <= 0x9f : isContinuation(b1)
    return ok1 && isContinuation(bytes[at + 2]) ? 3 : 0
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    if (b1 === undefined) return 0
    const ok1 = lead === 0xf0 ? b1 >= 0x90 && b1 <= 0xbf : lead === 0xf4 ? b1 >= 0x80 && b1 <= 0x8f : isContinuation(b1)
    return ok1 && isContinuation(bytes[at + 2]) && isContinuation(bytes[at + 3]) ? 4 : 0
  }
  return 0
}

const decodeWithEscapes = (bytes: Buffer): string => {
  let text = ""
  let at = 0
  while (at < bytes.length) {
    const length = sequenceLength(bytes, at)
    if (length === 0) {
      text += String.fromCharCode(0xdc00 + bytes[at]!)
      at += 1
    } else {
      text += bytes.toString("utf8", at, at + length)
      at += length
    }
  }
  return text
}

/** A batch built from single `stat`/`realpath` calls (the memory and fault layers use it). */
const inspectEach = (
  stat: WalkerFsShape["stat"],
  realpath: WalkerFsShape["realpath"],
  concurrency: number
): WalkerFsShape["inspectAll"] =>
(requests) =>
  Effect.forEach(
    requests,
    (request) =>
      stat(request.path).pipe(
        Effect.flatMap((fileStat) =>
          request.realpath
            ? Effect.map(realpath(request.path), (realPath): Inspected => ({ stat: fileStat, realPath }))
            : Effect.succeed<Inspected>({ stat: fileStat, realPath: null })
        ),
        Effect.either
      ),
    { concurrency }
  )

/** Wraps a port so that the listed calls fail with their errno code; the rest pass through. */
export const withFaults = (inner: WalkerFsShape, faults: ReadonlyArray<FsFault>): WalkerFsShape => {
  const faultOf = (op: FsOp, path: string) => faults.find((fault) => fault.op === op && fault.path === path)
  const guard = <A>(op: FsOp, call: (path: string) => Effect.Effect<A, WalkerFsError>) => (path: string) => {
    const fault = faultOf(op, path)
    return fault === undefined ? call(path) : Effect.fail(new WalkerFsError({ op, path, code: fault.code }))
  }
  const stat = guard("stat", inner.stat)
  const realpath = guard("realpath", inner.realpath)
  return {
    user: inner.user,
    readDirectory: guard("readDirectory", inner.readDirectory),
    stat,
    realpath,
    readlink: guard("readlink", inner.readlink),
    inspectAll: faults.length === 0 ? inner.inspectAll : inspectEach(stat, realpath, DEFAULT_INSPECT_CONCURRENCY)
  }
}

interface MemoryInode {
  readonly ino: number
  readonly node: Exclude<MemoryNode, { readonly type: "hardlink" }>
  /** Directory entries: key (case-folded on Windows) → display name and inode. */
  readonly children: Map<string, { readonly name: string; readonly inode: MemoryInode }>
}

interface ParsedPath {
  /** "/" on POSIX, the upper-cased drive ("C:") or UNC prefix on Windows. */
  readonly root: string
  readonly parts: ReadonlyArray<string>
}

/** The in-memory port (see `MemoryTree`). */
export const makeMemoryWalkerFs = (tree: MemoryTree): WalkerFsShape => {
  const win = tree.style === "win32"
  const maxSymlinks = tree.maxSymlinks ?? 40
  const keyOf = (name: string) => win ? name.toLowerCase() : name
  let nextIno = 1
  const newInode = (node: MemoryInode["node"]): MemoryInode => ({ ino: nextIno++, node, children: new Map() })
  const roots = new Map<string, MemoryInode>()

  const parse = (path: string): ParsedPath | null => {
    if (!win) return path.startsWith("/") ? { root: "/", parts: path.split("/").filter((p) => p !== "") } : null
    const text = path.replace(/\//g, "\\")
    const match = /^([A-Za-z]:)\\|^(\\\\[^\\]+\\[^\\]+)/.exec(text)
    if (match === null) return null
    const root = (match[1] ?? match[2]!).toUpperCase()
    return { root, parts: text.slice(match[0].length).split("\\").filter((p) => p !== "") }
  }
  const format = (root: string, parts: ReadonlyArray<string>) =>
    win ? `${root}\\${parts.join("\\")}` : `/${parts.join("/")}`
  const rootInode = (root: string) => {
    const existing = roots.get(root)
    if (existing !== undefined) return existing
    const created = newInode({ type: "dir" })
    roots.set(root, created)
    return created
  }
  const ensureDir = (root: string, parts: ReadonlyArray<string>): MemoryInode => {
    let dir = rootInode(root)
    for (const part of parts) {
      const entry = dir.children.get(keyOf(part))
      if (entry === undefined) {
        const created = newInode({ type: "dir" })
        dir.children.set(keyOf(part), { name: part, inode: created })
        dir = created
      } else dir = entry.inode
    }
    return dir
  }

  // Nodes first, hard links after, so that a link may name any node of the tree.
  const entries = Object.entries(tree.nodes)
  for (const [path, node] of entries) {
    if (node.type === "hardlink") continue
    const parsed = parse(path)
    if (parsed === null) throw new Error(`MemoryTree path is not absolute: ${path}`)
    const parent = ensureDir(parsed.root, parsed.parts.slice(0, -1))
    const name = parsed.parts[parsed.parts.length - 1]
    if (name === undefined) continue
    const existing = parent.children.get(keyOf(name))
    if (existing !== undefined && node.type === "dir") continue
    parent.children.set(keyOf(name), { name, inode: newInode(node) })
  }

  type Resolved =
    | { readonly _tag: "ok"; readonly inode: MemoryInode; readonly real: string }
    | { readonly _tag: "error"; readonly code: string }

  const resolve = (path: string, followLast: boolean): Resolved => {
    const parsed = parse(path)
    if (parsed === null) return { _tag: "error", code: "ENOENT" }
    let root = parsed.root
    let stack: Array<{ readonly name: string; readonly inode: MemoryInode }> = []
    const queue = [...parsed.parts]
    let hops = 0
    const top = () => stack.length === 0 ? rootInode(root) : stack[stack.length - 1]!.inode
    while (queue.length > 0) {
      const part = queue.shift()!
      if (part === ".") continue
      if (top().node.type !== "dir") return { _tag: "error", code: "ENOTDIR" }
      if (part === "..") {
        stack.pop()
        continue
      }
      const entry = top().children.get(keyOf(part))
      if (entry === undefined) return { _tag: "error", code: "ENOENT" }
      if (entry.inode.node.type === "symlink" && (queue.length > 0 || followLast)) {
        hops += 1
        if (hops > maxSymlinks) return { _tag: "error", code: "ELOOP" }
        const target = entry.inode.node.target
        const absolute = parse(target)
        if (absolute !== null) {
          root = absolute.root
          stack = []
          queue.unshift(...absolute.parts)
        } else queue.unshift(...target.split(/[\\/]/).filter((p) => p !== ""))
        continue
      }
      stack.push(entry)
    }
    return { _tag: "ok", inode: top(), real: format(root, stack.map((entry) => entry.name)) }
  }

  for (const [path, node] of entries) {
    if (node.type !== "hardlink") continue
    const parsed = parse(path)
    const target = resolve(node.to, false)
    if (parsed === null || target._tag === "error") throw new Error(`MemoryTree hard link is invalid: ${path}`)
    const parent = ensureDir(parsed.root, parsed.parts.slice(0, -1))
    const name = parsed.parts[parsed.parts.length - 1]!
    parent.children.set(keyOf(name), { name, inode: target.inode })
  }

  const faultCode = (op: FsOp, path: string) => {
    const parsed = parse(path)
    return tree.faults?.find((fault) => {
      if (fault.op !== op) return false
      const other = parse(fault.path)
      return parsed !== null && other !== null &&
        keyOf(format(parsed.root, parsed.parts)) === keyOf(format(other.root, other.parts))
    })?.code
  }
  /** Runs `body` unless a fault is injected; `body` answers a value or an errno code. */
  const call = <A>(op: FsOp, path: string, body: () => Either.Either<A, string>) =>
    Effect.suspend(() => {
      const injected = faultCode(op, path)
      const outcome = injected === undefined ? body() : Either.left(injected)
      return Either.match(outcome, {
        onLeft: (code) => Effect.fail(new WalkerFsError({ op, path, code })),
        onRight: Effect.succeed
      })
    })

  const toStat = (inode: MemoryInode): FileStat => {
    const node = inode.node
    const file = node.type === "file" ? node : undefined
    const defaultMode = node.type === "dir" ? 0o40755 : node.type === "file" ? 0o100644 : 0o10644
    const permissions = file?.mode ?? (node.type === "dir" ? node.mode : undefined)
    return {
      kind: node.type === "file" ? "file" : node.type === "dir" ? "directory" : "other",
      dev: 1,
      ino: inode.ino,
      mode: permissions === undefined ? defaultMode : (defaultMode & 0o170000) | permissions,
      uid: file?.uid ?? 1000,
      gid: file?.gid ?? 1000,
      size: file?.size ?? 0,
      mtimeMs: file?.mtimeMs ?? 0
    }
  }
  const kindOf = (inode: MemoryInode): EntryKind =>
    tree.unknownEntryKinds === true
      ? "unknown"
      : inode.node.type === "dir"
      ? "directory"
      : inode.node.type === "file"
      ? "file"
      : inode.node.type === "symlink"
      ? "symlink"
      : "other"

  const stat: WalkerFsShape["stat"] = (path) =>
    call("stat", path, () => {
      const resolved = resolve(path, true)
      return resolved._tag === "error" ? Either.left(resolved.code) : Either.right(toStat(resolved.inode))
    })
  const realpath: WalkerFsShape["realpath"] = (path) =>
    call("realpath", path, () => {
      const resolved = resolve(path, true)
      return resolved._tag === "error" ? Either.left(resolved.code) : Either.right(resolved.real)
    })
  return {
    user: tree.user === undefined ? (win ? null : { uid: 1000, gid: 1000, groups: [] }) : tree.user,
    readDirectory: (path) =>
      call("readDirectory", path, () => {
        const resolved = resolve(path, true)
        if (resolved._tag === "error") return Either.left(resolved.code)
        if (resolved.inode.node.type !== "dir") return Either.left("ENOTDIR")
        return Either.right(Array.from(resolved.inode.children.values(), ({ inode, name }): DirEntry => ({
          name,
          kind: kindOf(inode),
          utf8: !hasEscapedBytes(name)
        })))
      }),
    stat,
    realpath,
    readlink: (path) =>
      call("readlink", path, () => {
        const resolved = resolve(path, false)
        if (resolved._tag === "error") return Either.left(resolved.code)
        return resolved.inode.node.type === "symlink" ? Either.right(resolved.inode.node.target) : Either.left("EINVAL")
      }),
    inspectAll: inspectEach(stat, realpath, DEFAULT_INSPECT_CONCURRENCY)
  }
}
