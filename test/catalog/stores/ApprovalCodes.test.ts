import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Logger, LogLevel, Option, TestClock } from "effect"
import * as NodePath from "node:path"
import {
  type Approval,
  ApprovalCodeNotFound,
  ApprovalCodes,
  approvalsFileIn,
  APPROVALS_FILE_MAX_BYTES,
  newCode,
  normalizeCode
} from "../../../src/catalog/stores/ApprovalCodes.js"
import { LockOwner, type LockOwnerShape } from "../../../src/services/FileLock.js"

const CODE = /^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/

const tempFile = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  return approvalsFileIn(NodePath.join(yield* fs.makeTempDirectoryScoped(), "catalog"))
})

/** The store over `file`, as one process sees it. */
const withStore = <A, E>(file: string, body: (store: ApprovalCodes["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(ApprovalCodes, body).pipe(Effect.provide(ApprovalCodes.layer(file)))

const ask = (tool: string, agentId = "gemini-cli") => ({
  agentId,
  tool,
  server: "memory",
  summary: `Summary of ${tool}`,
  evidence: ["MCP destructiveHint=true (untrusted hint)"]
})

const MINUTE = 60_000

describe("normalizeCode and newCode", () => {
  it("reads a code typed in any case, with or without its dash or spaces; refuses what cannot be one", () => {
    expect(normalizeCode("abcd-efgh")).toEqual(Option.some("ABCD-EFGH"))
    expect(normalizeCode(" ABCDEFGH ")).toEqual(Option.some("ABCD-EFGH"))
    expect(normalizeCode("ab cd ef gh")).toEqual(Option.some("ABCD-EFGH"))
    // 0, 1, O and I are not in the alphabet; 7 or 9 symbols are no code.
    expect([normalizeCode("ABCD-EFG0"), normalizeCode("ABCD-EFGI"), normalizeCode("ABCD-EFG"), normalizeCode("ABCD-EFGHJ")]).toEqual(
      [Option.none(), Option.none(), Option.none(), Option.none()]
    )
  })

  it("makes codes of the unambiguous alphabet, grouped by four, that differ", () => {
    const codes = Array.from({ length: 1000 }, newCode)
    expect(codes.every((code) => CODE.test(code))).toBe(true)
    expect(new Set(codes).size).toBe(1000)
  })
})

describe("ApprovalCodes", () => {
  it.scoped("hands out one code per agent and tool, approves it once, and the load consumes it once", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      yield* TestClock.setTime(1_000_000)
      yield* withStore(file, (store) =>
        Effect.gen(function*() {
          const first = yield* store.request(ask("mcp__memory__delete_entities"))
          expect(first.code).toMatch(CODE)
          expect(first.expiresAt).toBe(1_000_000 + 10 * MINUTE)
          // Asked again: the same code; another tool or agent: another one.
          yield* TestClock.adjust("1 minute")
          expect(yield* store.request(ask("mcp__memory__delete_entities"))).toEqual(first)
          const other = yield* store.request(ask("mcp__memory__delete_relations"))
          const otherAgent = yield* store.request(ask("mcp__memory__delete_entities", "opencode"))
          expect(new Set([first.code, other.code, otherAgent.code]).size).toBe(3)
          // Pending is not approved.
          expect(yield* store.consume("gemini-cli", "mcp__memory__delete_entities")).toBe(false)
          const approved = yield* store.approve(first.code)
          expect(approved).toEqual({
            code: first.code,
            agentId: "gemini-cli",
            tool: "mcp__memory__delete_entities",
            server: "memory",
            summary: "Summary of mcp__memory__delete_entities",
            evidence: ["MCP destructiveHint=true (untrusted hint)"],
            status: "approved",
            requestedAt: 1_000_000,
            expiresAt: 1_000_000 + 11 * MINUTE
          } satisfies Approval)
          // Another agent's approval is not this one's.
          expect(yield* store.consume("opencode", "mcp__memory__delete_entities")).toBe(false)
          expect(yield* store.consume("gemini-cli", "mcp__memory__delete_entities")).toBe(true)
          expect(yield* store.consume("gemini-cli", "mcp__memory__delete_entities")).toBe(false)
          expect((yield* store.list).map((approval) => [approval.code, approval.tool, approval.agentId, approval.status])).toEqual([
            [other.code, "mcp__memory__delete_relations", "gemini-cli", "pending"],
            [otherAgent.code, "mcp__memory__delete_entities", "opencode", "pending"]
          ])
        }))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a pending code expires after 10 minutes, an approval not used after 10 more", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      yield* withStore(file, (store) =>
        Effect.gen(function*() {
          const late = yield* store.request(ask("late"))
          const unused = yield* store.request(ask("unused"))
          yield* TestClock.adjust("9 minutes")
          yield* store.approve(unused.code)
          yield* TestClock.adjust("1 minute")
          // Pending for 10 minutes: gone, for approve and for the list.
          expect(yield* Effect.either(store.approve(late.code))).toEqual(Either.left(new ApprovalCodeNotFound({ code: late.code })))
          expect(yield* store.find(late.code)).toEqual(Option.none())
          // Approved at minute 9: counts until minute 19.
          yield* TestClock.adjust("8 minutes")
          expect(Option.map(yield* store.find(unused.code), (approval) => approval.status)).toEqual(Option.some("approved"))
          yield* TestClock.adjust("1 minute")
          expect(yield* store.consume("gemini-cli", "unused")).toBe(false)
          expect(yield* store.list).toEqual([])
          // A new request after expiry gets a new code.
          expect((yield* store.request(ask("late"))).code).not.toBe(late.code)
        }))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("deny removes a code, pending or approved; an unknown code is not found", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      yield* withStore(file, (store) =>
        Effect.gen(function*() {
          const pending = yield* store.request(ask("a"))
          const approved = yield* store.request(ask("b"))
          yield* store.approve(approved.code)
          expect((yield* store.deny(pending.code)).tool).toBe("a")
          expect((yield* store.deny(approved.code)).status).toBe("approved")
          expect(yield* store.consume("gemini-cli", "b")).toBe(false)
          expect(yield* Effect.either(store.approve(pending.code))).toEqual(Either.left(new ApprovalCodeNotFound({ code: pending.code })))
          expect(yield* Effect.either(store.deny("ZZZZ-ZZZZ"))).toEqual(Either.left(new ApprovalCodeNotFound({ code: "ZZZZ-ZZZZ" })))
          expect(yield* store.list).toEqual([])
        }))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("keeps its file readable by the user alone, and a read writes nothing", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const file = yield* tempFile
      yield* withStore(file, (store) => store.list)
      expect(yield* fs.exists(file)).toBe(false)
      yield* withStore(file, (store) => store.request(ask("a")))
      expect((yield* fs.stat(file)).mode & 0o777).toBe(0o600)
      const stored = JSON.parse(yield* fs.readFileString(file))
      expect(Object.keys(stored)).toEqual(["version", "approvals"])
      expect(stored.approvals.map((approval: Approval) => approval.status)).toEqual(["pending"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a file that does not decode, is over its cap or is no regular file holds no approvals", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const file = yield* tempFile
      yield* fs.makeDirectory(NodePath.dirname(file), { recursive: true })
      const approved = JSON.stringify({
        version: 1,
        approvals: [{ ...ask("a"), code: "ABCD-EFGH", status: "approved", requestedAt: 0, expiresAt: 10 * MINUTE }]
      })
      yield* fs.writeFileString(file, approved)
      expect(yield* withStore(file, (store) => store.consume("gemini-cli", "a"))).toBe(true)
      yield* fs.writeFileString(file, "{ not json")
      expect(yield* withStore(file, (store) => store.list)).toEqual([])
      yield* fs.writeFileString(file, approved.replace("}]}", `, "pad": "${"x".repeat(APPROVALS_FILE_MAX_BYTES)}"}]}`))
      expect(yield* withStore(file, (store) => store.consume("gemini-cli", "a"))).toBe(false)
      yield* fs.remove(file)
      yield* fs.writeFileString(`${file}.target`, approved)
      yield* fs.symlink(`${file}.target`, file)
      expect(yield* withStore(file, (store) => store.consume("gemini-cli", "a"))).toBe(false)
      // The next write replaces the link with a file of its own.
      yield* withStore(file, (store) => store.request(ask("b")))
      expect((yield* fs.stat(file)).type).toBe("File")
      expect(JSON.parse(yield* fs.readFileString(`${file}.target`))).toEqual(JSON.parse(approved))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("two processes writing at once lose no code", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      let pid = 72_000
      const owner = (): LockOwnerShape => ({ pid: pid++, isAlive: () => Effect.succeed(true) })
      const processA = ApprovalCodes.layer(file).pipe(Layer.provide(Layer.succeed(LockOwner, owner())))
      const processB = ApprovalCodes.layer(file).pipe(Layer.provide(Layer.succeed(LockOwner, owner())))
      const tools = Array.from({ length: 12 }, (_, index) => `tool_${index}`)
      const issued = yield* Effect.forEach(
        tools,
        (tool, index) => Effect.flatMap(ApprovalCodes, (store) => store.request(ask(tool))).pipe(Effect.provide(index % 2 === 0 ? processA : processB)),
        { concurrency: "unbounded" }
      )
      const listed = yield* Effect.flatMap(ApprovalCodes, (store) => store.list).pipe(Effect.provide(processA))
      expect(listed.map((approval) => approval.tool).sort()).toEqual([...tools].sort())
      expect(listed.map((approval) => approval.code).sort()).toEqual(issued.map((code) => code.code).sort())
      // Approved by one process, consumed once by the other, whichever runs first.
      yield* Effect.flatMap(ApprovalCodes, (store) => store.approve(issued[0]!.code)).pipe(Effect.provide(processA))
      const consumed = yield* Effect.forEach(
        [processA, processB, processA, processB],
        (process) => Effect.flatMap(ApprovalCodes, (store) => store.consume("gemini-cli", "tool_0")).pipe(Effect.provide(process)),
        { concurrency: "unbounded" }
      )
      expect(consumed.filter(Boolean)).toEqual([true])
    }).pipe(Effect.provide(NodeContext.layer), Logger.withMinimumLogLevel(LogLevel.Error)))
})
