/**
 * One-time approval codes for high-risk tools, where the MCP client cannot ask the user itself
 * (no elicitation): the gateway asks for a code, the user approves it with `tool-map catalog
 * approve CODE` in a terminal, and the next load of that tool by that agent consumes it. Only the
 * CLI approves: nothing the gateway receives from a client reaches `approve`.
 *
 * The codes live in one JSON file (mode 0600) under the catalog dir, shared by the gateway's
 * process and the CLI, read-modify-written under the catalog files' lock. A file that is a
 * link or not a regular file, is over its cap, or does not decode counts as holding no
 * approvals (they last minutes; the next write replaces it).
 */
import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Clock, Context, Duration, Effect, Either, Layer, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import * as NodePath from "node:path"
import { FileLocked, FileLockError, lockPathOf } from "../../services/FileLock.js"
import { CatalogFileError, catalogFileLock, readBounded, textOf, writeFileAtomic } from "./jsonFile.js"

/** The letters and digits of a code: no 0/O, no 1/I, so that none is misread. 32 of them. */
export const APPROVAL_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

/** How long a code waits for the user, and how long an approval waits for its load, by default. */
export const APPROVAL_CODE_TTL: Duration.Duration = Duration.minutes(10)

/** The largest approvals file read back; a larger one holds no approvals. */
export const APPROVALS_FILE_MAX_BYTES = 1024 * 1024

/** The most approvals kept at once; beyond it the oldest are dropped. */
export const MAX_APPROVALS = 200

/** The approvals file in a catalog dir. */
export const approvalsFileIn = (catalogDir: string): string => NodePath.join(catalogDir, "approvals.json")

const CODE_PATTERN = /^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/

/** One approval, pending (waiting for the user) or approved (waiting for its load). */
export const Approval = Schema.Struct({
  code: Schema.String.pipe(Schema.pattern(CODE_PATTERN)),
  agentId: Schema.String,
  tool: Schema.String,
  server: Schema.String,
  summary: Schema.String,
  evidence: Schema.Array(Schema.String),
  status: Schema.Literal("pending", "approved"),
  /** Epoch milliseconds. */
  requestedAt: Schema.Number,
  /** Epoch milliseconds: a pending code's end, then, once approved, the approval's. */
  expiresAt: Schema.Number
})

/** One approval, pending or approved. */
export type Approval = typeof Approval.Type

const ApprovalsFile = Schema.Struct({ version: Schema.Literal(1), approvals: Schema.Array(Approval) })
const decodeFile = Schema.decodeUnknownEither(Schema.parseJson(ApprovalsFile))

/** What the gateway records about the tool it asks a person for. */
export interface ApprovalRequest {
  readonly agentId: string
  readonly tool: string
  /** The server (catalog group) the tool comes from. */
  readonly server: string
  readonly summary: string
  /** Why the tool is high risk. */
  readonly evidence: ReadonlyArray<string>
}

/** A code handed out, and when it stops counting (epoch milliseconds). */
export interface IssuedCode {
  readonly code: string
  readonly expiresAt: number
}

/** No approval waiting under this code: none was made, or it expired, was used or was denied. */
export class ApprovalCodeNotFound extends Schema.TaggedError<ApprovalCodeNotFound>()("ApprovalCodeNotFound", {
  code: Schema.String
}) {
  get message() {
    return `No approval is waiting under the code ${this.code} (it expired, was used or was denied, or never existed); run \`tool-map catalog approve\` to list the pending ones.`
  }
}

/** A code as typed (any case, with or without its dash or spaces) in its stored form `ABCD-EFGH`; `None` when it cannot be one. */
export const normalizeCode = (typed: string): Option.Option<string> => {
  const bare = typed.replace(/[\s-]/g, "").toUpperCase()
  if (bare.length !== 8) return Option.none()
  const code = `${bare.slice(0, 4)}-${bare.slice(4)}`
  return CODE_PATTERN.test(code) ? Option.some(code) : Option.none()
}

/** A fresh code from the OS's random source: 8 symbols of 32, 40 bits. */
export const newCode = (): string => {
  // 256 is a multiple of 32: each byte's low 5 bits pick a symbol with no bias.
  const symbols = [...randomBytes(8)].map((byte) => APPROVAL_CODE_ALPHABET[byte & 31])
  return `${symbols.slice(0, 4).join("")}-${symbols.slice(4).join("")}`
}

const cap = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** How long codes and approvals last. */
export interface ApprovalTimings {
  /** How long a code waits for the user (default 10 minutes). */
  readonly pendingFor?: Duration.DurationInput | undefined
  /** How long an approval waits for its load (default 10 minutes). */
  readonly approvedFor?: Duration.DurationInput | undefined
}

/** The approvals shared by the gateway (which asks and consumes) and the CLI (which approves or denies). */
export class ApprovalCodes extends Context.Tag("tool-map/ApprovalCodes")<ApprovalCodes, {
  /** The file the approvals are kept in. */
  readonly file: string
  /**
   * The code of the pending approval for this agent and tool: the one already waiting, else a
   * new one. Called by the gateway; it never approves.
   */
  readonly request: (request: ApprovalRequest) => Effect.Effect<IssuedCode, CatalogFileError>
  /** True once per approval: when the user approved this agent's use of `tool` and it has not expired; the approval is then gone. */
  readonly consume: (agentId: string, tool: string) => Effect.Effect<boolean, CatalogFileError>
  /** Whether an approval of `tool` for `agentId` waits for its load (nothing is spent). */
  readonly isApproved: (agentId: string, tool: string) => Effect.Effect<boolean, CatalogFileError>
  /** The approvals not expired, oldest first. Only reads. */
  readonly list: Effect.Effect<ReadonlyArray<Approval>, CatalogFileError>
  /** The approval under `code` (in its stored form), not expired. Only reads. */
  readonly find: (code: string) => Effect.Effect<Option.Option<Approval>, CatalogFileError>
  /** Approves a pending code (an approved one stays approved); the approval then waits `approvedFor` for its load. */
  readonly approve: (code: string) => Effect.Effect<Approval, ApprovalCodeNotFound | CatalogFileError>
  /** Refuses a code, pending or approved: it is removed. */
  readonly deny: (code: string) => Effect.Effect<Approval, ApprovalCodeNotFound | CatalogFileError>
}>() {
  /** The approvals in `file` (see `approvalsFileIn`). */
  static readonly layer = (file: string, timings: ApprovalTimings = {}) => Layer.effect(this, make(file, timings))
}

const make = Effect.fn("ApprovalCodes.make")(function*(file: string, timings: ApprovalTimings) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  // The lock is chosen once: this store is one taker (one simulated process in tests).
  const locks = yield* catalogFileLock
  const pendingFor = Duration.toMillis(timings.pendingFor ?? APPROVAL_CODE_TTL)
  const approvedFor = Duration.toMillis(timings.approvedFor ?? APPROVAL_CODE_TTL)
  const failed = (operation: CatalogFileError["operation"]) => (error: PlatformError) =>
    new CatalogFileError({ path: file, operation, reason: error.message })

  // tool-map writes the file itself, never a link: a link there holds no approvals.
  const isLink = fs.readLink(file).pipe(Effect.as(true), Effect.orElseSucceed(() => false))

  /** The approvals as stored, expired ones included. */
  const readAll: Effect.Effect<ReadonlyArray<Approval>, CatalogFileError> = Effect.flatMap(isLink, (link) =>
    link
      ? Effect.succeed([])
      : readBounded(file, APPROVALS_FILE_MAX_BYTES, textOf).pipe(
        Effect.map((found) => {
          if (Option.isNone(found) || Either.isLeft(found.value)) return []
          return Either.match(decodeFile(found.value.right), { onLeft: () => [], onRight: (decoded) => decoded.approvals })
        }),
        Effect.provideService(FileSystem.FileSystem, fs)
      ))

  const live = (approvals: ReadonlyArray<Approval>, now: number) => approvals.filter((approval) => approval.expiresAt > now)

  /** Writes the approvals readable by the user alone (mode 0600, set before the file is in place). */
  const writeAll = (approvals: ReadonlyArray<Approval>) =>
    writeFileAtomic(file, `${JSON.stringify(Schema.encodeSync(ApprovalsFile)({ version: 1, approvals }), null, 2)}\n`, { mode: 0o600 }).pipe(
      Effect.provideService(FileSystem.FileSystem, fs),
      Effect.provideService(Path.Path, path)
    )

  /**
   * Applies `change` to the live approvals as stored now, under the file's lock, and writes what
   * it returns (expired ones dropped, the newest `MAX_APPROVALS` kept).
   */
  const modify = <A, E>(change: (approvals: ReadonlyArray<Approval>, now: number) => Effect.Effect<readonly [A, ReadonlyArray<Approval>], E>) =>
    Effect.gen(function*() {
      yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(Effect.mapError(failed("write")))
      return yield* locks.withLock(
        lockPathOf(file),
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const [result, next] = yield* change(live(yield* readAll, now), now)
          yield* writeAll(live(next, now).slice(-MAX_APPROVALS))
          return result
        })
      ).pipe(
        Effect.mapError((error) =>
          error instanceof FileLockError || error instanceof FileLocked
            ? new CatalogFileError({ path: file, operation: "lock", reason: error.message })
            : error
        )
      )
    })

  const sameUse = (agentId: string, tool: string) => (approval: Approval) => approval.agentId === agentId && approval.tool === tool

  const list = Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.map(readAll, (approvals) => live(approvals, now)))

  const request = Effect.fn("ApprovalCodes.request")(function*(asked: ApprovalRequest) {
    return yield* modify((approvals, now) => {
      const waiting = approvals.find((approval) => approval.status === "pending" && sameUse(asked.agentId, asked.tool)(approval))
      if (waiting !== undefined) return Effect.succeed([{ code: waiting.code, expiresAt: waiting.expiresAt }, approvals] as const)
      const taken = new Set(approvals.map((approval) => approval.code))
      let code = newCode()
      while (taken.has(code)) code = newCode()
      const approval: Approval = {
        code,
        agentId: asked.agentId,
        tool: asked.tool,
        server: asked.server,
        summary: cap(asked.summary, 500),
        evidence: asked.evidence.slice(0, 10).map((line) => cap(line, 300)),
        status: "pending",
        requestedAt: now,
        expiresAt: now + pendingFor
      }
      return Effect.succeed([{ code, expiresAt: approval.expiresAt }, [...approvals, approval]] as const)
    })
  })

  const approvedUse = (agentId: string, tool: string) => (approval: Approval) => approval.status === "approved" && sameUse(agentId, tool)(approval)

  const isApproved = (agentId: string, tool: string) => Effect.map(list, (approvals) => approvals.some(approvedUse(agentId, tool)))

  const consume = Effect.fn("ApprovalCodes.consume")(function*(agentId: string, tool: string) {
    const approved = approvedUse(agentId, tool)
    // The usual answer, no: from a read, without the lock or a write.
    if (!(yield* isApproved(agentId, tool))) return false
    return yield* modify((approvals) => {
      const used = approvals.find(approved)
      return Effect.succeed([used !== undefined, approvals.filter((approval) => approval !== used)] as const)
    })
  })

  const find = (code: string) => Effect.map(list, (approvals) => Option.fromNullable(approvals.find((approval) => approval.code === code)))

  const approve = Effect.fn("ApprovalCodes.approve")(function*(code: string) {
    return yield* modify((approvals, now) => {
      const found = approvals.find((approval) => approval.code === code)
      if (found === undefined) return Effect.fail(new ApprovalCodeNotFound({ code }))
      if (found.status === "approved") return Effect.succeed([found, approvals] as const)
      const approved: Approval = { ...found, status: "approved", expiresAt: now + approvedFor }
      return Effect.succeed([approved, approvals.map((approval) => (approval === found ? approved : approval))] as const)
    })
  })

  const deny = Effect.fn("ApprovalCodes.deny")(function*(code: string) {
    return yield* modify((approvals) => {
      const found = approvals.find((approval) => approval.code === code)
      if (found === undefined) return Effect.fail(new ApprovalCodeNotFound({ code }))
      return Effect.succeed([found, approvals.filter((approval) => approval !== found)] as const)
    })
  })

  return ApprovalCodes.of({ file, request, consume, isApproved, list, find, approve, deny })
})
