import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Option, Ref } from "effect"
import { makeMemoryHost } from "../../../examples/minimal-host/host.js"
import { pluginLayer } from "../../../examples/minimal-host/plugin.js"
import { Embedder } from "../../../src/catalog/services/Embedder.js"
import type { Agent } from "../../../src/catalog/services/HostPort.js"
import { CatalogEvents } from "../../../src/catalog/stores/CatalogEvents.js"
import { Router, SKILL_BODY_CAP } from "../../../src/catalog/services/Router.js"
import { RouterIndexStore } from "../../../src/catalog/stores/RouterIndexStore.js"
import { ToolCatalog } from "../../../src/catalog/services/ToolCatalog.js"
import { MachineEnvironment } from "../../../src/services/MachineEnvironment.js"
import type { ToolSchema } from "../../../src/catalog/core/model.js"
import { encodeIndex, indexDigest, indexHeadBytes } from "../../../src/catalog/core/router/indexFile.js"
import { buildIndex } from "../../../src/catalog/core/router/invertedIndex.js"
import { routerDocuments } from "../../../src/catalog/core/router/router.js"
import { buildCatalog } from "../../../src/catalog/core/catalog.js"
import { catalogWords, toolEmbeddingText } from "../../../src/catalog/core/router/fusion.js"
import { decodeIndex, object, ROUTER_FIXTURE } from "../core/routerFixture.js"

const main: Agent = { id: "main", sessionId: "s-main", provider: "test" }
const platform = Layer.mergeAll(NodeContext.layer, MachineEnvironment.layerTest({}))

/** Runs `body` with the catalog embedded over a memory host holding the router fixture. */
const withRouter = <A, E>(
  body: Effect.Effect<A, E, Router | ToolCatalog>,
  extra: Layer.Layer<never> | Layer.Layer<Embedder> = Layer.empty,
  tools: ReadonlyArray<ToolSchema> = ROUTER_FIXTURE
) =>
  Effect.gen(function*() {
    const host = yield* makeMemoryHost({ tools })
    return yield* Effect.gen(function*() {
      yield* (yield* ToolCatalog).attach(main)
      return yield* body
    }).pipe(Effect.scoped, Effect.provide(pluginLayer(host, { persist: false }).pipe(Layer.provide(extra))))
  }).pipe(Effect.provide(platform))

/** Runs `body` in a graph of its own (as a new process would) over a catalog dir, with the host holding `tools`. */
const inCatalogDir = <A, E>(dir: string, tools: ReadonlyArray<ToolSchema>, body: Effect.Effect<A, E, Router | ToolCatalog>) =>
  Effect.gen(function*() {
    const host = yield* makeMemoryHost({ tools })
    return yield* Effect.gen(function*() {
      yield* (yield* ToolCatalog).attach(main)
      return yield* body
    }).pipe(Effect.scoped, Effect.provide(pluginLayer(host, { dir })))
  })

const names = (query: string, k = 3) =>
  Effect.flatMap(Router, (router) => router.findTools({ query, k }, main)).pipe(Effect.map((hits) => hits.map((hit) => hit.name)))

const catalogOf = Effect.flatMap(ToolCatalog, (catalog) => catalog.get(main))


/** A deterministic embedder: one dimension per topic, 1 when the text names it. */
const TOPICS = [["message", "channel", "chat", "team"], ["issue", "repository", "code", "bug"], ["file", "text"]]
const topicEmbedder = Layer.succeed(Embedder, {
  name: "topics",
  embed: (texts) =>
    Effect.succeed(texts.map((text) => TOPICS.map((words) => (words.some((word) => text.toLowerCase().includes(word)) ? 1 : 0))))
})

describe("Router", () => {
  it.live("finds tools for a task with why they matched and whether they are loaded", () =>
    withRouter(Effect.gen(function*() {
      const router = yield* Router
      const hits = yield* router.findTools({ query: "post a message in the channel", k: 2 }, main)
      expect(hits.map((hit) => [hit.name, hit.path, hit.loaded, hit.matched])).toEqual([
        ["mcp__slack__post_message", "/communication/slack/post_message", false, [
          { field: "name", words: ["post", "message"] },
          { field: "description", words: ["post", "message", "channel"] },
          { field: "parameters", words: ["post", "channel"] }
        ]],
        ["mcp__slack__list_channels", "/communication/slack/list_channels", false, [
          { field: "name", words: ["channel"] },
          { field: "description", words: ["channel"] }
        ]]
      ])
      expect(yield* router.findTools({ query: "post a message", path: "/code/github" }, main)).toEqual([])
    })))

  it.live("routes within a budget: one load of the strong hits, and what was left out and why", () =>
    withRouter(Effect.gen(function*() {
      const router = yield* Router
      const catalog = yield* ToolCatalog
      const built = yield* catalog.get(main)
      const post = built.byName.get("mcp__slack__post_message")!.tokens
      const list = built.byName.get("mcp__slack__list_channels")!.tokens
      const route = yield* router.routeTools(main, { query: "post a message in the channel", budget: post })
      expect(route.plan.load.map((hit) => hit.name)).toEqual(["mcp__slack__post_message"])
      const scoreOf = (i: number) => {
        const reason = route.plan.leftOut[i]!
        return reason._tag === "WeakMatch" ? reason.score : -1
      }
      // read_text_file comes in through the lexicon ("message" relates to "content").
      expect(route.plan.leftOut).toEqual([
        { _tag: "WeakMatch", name: "mcp__slack__list_channels", score: scoreOf(0), best: route.plan.load[0]!.score },
        { _tag: "WeakMatch", name: "read_text_file", score: scoreOf(1), best: route.plan.load[0]!.score }
      ])
      expect(Option.map(route.load, (load) => load.added)).toEqual(Option.some(["mcp__slack__post_message"]))
      expect(Option.getOrThrow(yield* catalog.allowFor(main))).toContain("mcp__slack__post_message")

      const again = yield* router.routeTools(main, { query: "list the channels and post a message", budget: list - 1 })
      expect(again.plan.load).toEqual([])
      expect(again.plan.leftOut.map((reason) => reason._tag)).toEqual(["Loaded", "OverBudget", "WeakMatch"])
      const weak = again.plan.leftOut[2]!
      expect(weak._tag === "WeakMatch" ? [weak.name, weak.score < weak.best / 2] : []).toEqual(["read_text_file", true])
      const twoDecimals = (value: number) => value.toFixed(2)
      expect(again.text.split("\n")).toEqual([
        "Nothing to load for \"list the channels and post a message\" within ~" + (list - 1) + " tok.",
        "Left out:",
        "  mcp__slack__post_message: loaded already",
        `  mcp__slack__list_channels: over the budget (~${list} tok, ~${list - 1} tok left)`,
        weak._tag === "WeakMatch"
          ? `  read_text_file: a weaker match (score ${twoDecimals(weak.score)}, under half of the best ${twoDecimals(weak.best)})`
          : ""
      ])
    })))

  it.live("tools_route leaves a high-risk tool out without a risk gate, through the one load path", () =>
    withRouter(Effect.gen(function*() {
      const catalog = yield* ToolCatalog
      const text = yield* catalog.callEntryTool(main, "tools_route", { query: "delete_repository" })
      expect(text.split("\n")).toEqual([
        "Routed \"delete_repository\" (budget ~4.0k tok): chose mcp__github__delete_repository.",
        "Nothing new loaded.",
        "mcp__github__delete_repository is high risk and no risk gate is registered to confirm it; not loaded",
        "Left out:",
        "  mcp__github__search_code: a weaker match (score 1.10, under half of the best 5.28)",
        "  mcp__github__create_issue: a weaker match (score 1.00, under half of the best 5.28)"
      ])
    })))

  it.live("fuses a host's embedder with the lexical ranking: a task with no word of the catalog still finds tools", () =>
    Effect.gen(function*() {
      const lexical = yield* withRouter(Effect.flatMap(Router, (router) => router.findTools({ query: "chat with the team" }, main)))
      expect(lexical).toEqual([])
      const fused = yield* withRouter(Effect.flatMap(Router, (router) => router.findTools({ query: "chat with the team", k: 3 }, main)), topicEmbedder)
      // Equal vectors keep the catalog's order (list_channels before post_message) in the vector
      // ranking; "chat" and "team", which no tool holds, bring the catalog's words of the same
      // topic (message, channel …) into the lexical ranking, where post_message holds the most.
      expect(fused.map((hit) => hit.name)).toEqual(["mcp__slack__post_message", "mcp__slack__list_channels", "read_text_file"])
      // An exact name still comes first.
      const exact = yield* withRouter(Effect.flatMap(Router, (router) => router.findTools({ query: "read_text_file", k: 1 }, main)), topicEmbedder)
      expect(exact.map((hit) => hit.name)).toEqual(["read_text_file"])
    }))

  it.live("embeds the tools' texts with `embed` and the task, its clauses and its unknown words with `embedTasks`", () =>
    Effect.gen(function*() {
      const asked = yield* Ref.make<ReadonlyArray<readonly ["embed" | "embedTasks", ReadonlyArray<string>]>>([])
      const topics = (texts: ReadonlyArray<string>) => texts.map((text) => TOPICS.map((words) => (words.some((word) => text.toLowerCase().includes(word)) ? 1 : 0)))
      const recording = Layer.succeed(Embedder, {
        name: "recording",
        embed: (texts) => Effect.as(Ref.update(asked, (calls) => [...calls, ["embed", texts] as const]), topics(texts)),
        embedTasks: (texts) => Effect.as(Ref.update(asked, (calls) => [...calls, ["embedTasks", texts] as const]), topics(texts))
      })
      yield* withRouter(names("chat with the team. then open an issue"), recording)
      const calls = yield* Ref.get(asked)
      expect(calls.filter(([kind]) => kind === "embedTasks")).toEqual([
        ["embedTasks", ["chat with the team. then open an issue", "chat with the team.", "open an issue", "chat", "team", "open"]]
      ])
      // The tools' texts and their words, in one call, once for the tool set.
      const embedded = calls.filter(([kind]) => kind === "embed")
      expect(embedded.length).toBe(1)
      expect(embedded[0]![1]).toContain("post_message: Post a message to a Slack channel.")
      expect(embedded[0]![1]).toContain("channel")
    }))

  it.live("asks an embedder written as a class on itself, with or without embedTasks", () =>
    Effect.gen(function*() {
      class TopicModel {
        readonly name = "topic model"
        private readonly topics = TOPICS
        embed(texts: ReadonlyArray<string>) {
          return Effect.succeed(texts.map((text) => this.topics.map((words) => (words.some((word) => text.toLowerCase().includes(word)) ? 1 : 0))))
        }
      }
      class TopicQueryModel extends TopicModel {
        embedTasks(texts: ReadonlyArray<string>) {
          return this.embed(texts)
        }
      }
      for (const model of [new TopicModel(), new TopicQueryModel()]) {
        const hits = yield* withRouter(names("chat with the team"), Layer.succeed(Embedder, model))
        expect(hits).toEqual(["mcp__slack__post_message", "mcp__slack__list_channels", "read_text_file"])
      }
    }))

  it.live("ranks by words alone, with one warning, when an embedder's vectors do not fit: a wrong count or length", () =>
    Effect.gen(function*() {
      const topics = (texts: ReadonlyArray<string>) => texts.map((text) => TOPICS.map((words) => (words.some((word) => text.toLowerCase().includes(word)) ? 1 : 0)))
      const cases = [
        { embedTasks: (texts: ReadonlyArray<string>) => Effect.succeed(topics(texts).slice(1)), problem: "it gave 1 vector for 2 texts" },
        { embedTasks: (texts: ReadonlyArray<string>) => Effect.succeed(topics(texts).map((vector) => [...vector, 0])), problem: "it gave a task's vector of 4 numbers where the tools' have 3" }
      ]
      const lexical = yield* withRouter(names("chat issue"))
      const fitting = yield* withRouter(names("chat issue"), Layer.succeed(Embedder, { name: "fits", embed: (texts) => Effect.succeed(topics(texts)) }))
      expect(lexical).toEqual(["mcp__github__create_issue", "mcp__slack__list_channels", "read_text_file"])
      expect(fitting).toEqual(["mcp__github__create_issue", "mcp__slack__post_message", "mcp__slack__list_channels"])
      for (const { embedTasks, problem } of cases) {
        const logs = yield* Ref.make<ReadonlyArray<string>>([])
        const logger = Logger.make(({ message }) => Effect.runSync(Ref.update(logs, (all) => [...all, String(message)])))
        const embedder = Layer.succeed(Embedder, { name: "odd", embed: (texts) => Effect.succeed(topics(texts)), embedTasks })
        const hits = yield* withRouter(Effect.zip(names("chat issue"), names("chat issue")), embedder).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
        expect(hits).toEqual([lexical, lexical])
        expect(yield* Ref.get(logs)).toEqual([`The embedding provider odd failed: ${problem}; the router ranks by words alone`])
      }
      // The tools' vectors one too few: one warning, and the tool set is not embedded again for the next task.
      const logs = yield* Ref.make<ReadonlyArray<string>>([])
      const asked = yield* Ref.make(0)
      const logger = Logger.make(({ message }) => Effect.runSync(Ref.update(logs, (all) => [...all, String(message)])))
      const short = Layer.succeed(Embedder, {
        name: "short",
        embed: (texts) => Effect.as(Ref.update(asked, (n) => n + 1), topics(texts).slice(1))
      })
      const hits = yield* withRouter(Effect.zip(names("chat issue"), names("chat issue")), short).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      expect(hits).toEqual([lexical, lexical])
      // Asked for each tool's text and each word of those texts.
      const toolTexts = buildCatalog(ROUTER_FIXTURE).tools.map(toolEmbeddingText)
      const texts = toolTexts.length + catalogWords(toolTexts).length
      expect(yield* Ref.get(logs)).toEqual([`The embedding provider short failed: it gave ${texts - 1} vectors for ${texts} texts; the router ranks by words alone`])
      expect(yield* Ref.get(asked)).toBe(1)
    }))

  it.live("asks no embedder over a tool set with nothing to rank (only pinned tools), and warns of nothing", () =>
    Effect.gen(function*() {
      const logs = yield* Ref.make<ReadonlyArray<string>>([])
      const asked = yield* Ref.make(0)
      const logger = Logger.make(({ message }) => Effect.runSync(Ref.update(logs, (all) => [...all, String(message)])))
      const counting = Layer.succeed(Embedder, { name: "counting", embed: (texts) => Effect.as(Ref.update(asked, (n) => n + 1), texts.map(() => [1, 0])) })
      const pinnedOnly: ReadonlyArray<ToolSchema> = [{ name: "web_search", description: "Search the web.", inputSchema: object({ query: { type: "string" } }) }]
      const hits = yield* withRouter(names("search the web"), counting, pinnedOnly).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      expect(hits).toEqual([])
      expect(yield* Ref.get(asked)).toBe(0)
      expect(yield* Ref.get(logs)).toEqual([])
    }))

  it.live("finds the skills the hosts load and routes to the best one with its SKILL.md, capped", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const home = yield* fs.makeTempDirectoryScoped()
      const skill = (name: string, description: string, body: string) =>
        Effect.gen(function*() {
          yield* fs.makeDirectory(`${home}/.claude/skills/${name}`, { recursive: true })
          yield* fs.writeFileString(`${home}/.claude/skills/${name}/SKILL.md`, `---\nname: ${name}\ndescription: ${description}\n---\n${body}`)
        })
      yield* skill("pdf-report", "Build PDF reports with charts from data", "Use reportlab.\n")
      yield* skill("code-review", "Review a pull request for bugs", `Read the diff.\n${"x".repeat(SKILL_BODY_CAP)}`)
      // opencode is there (its own config file exists), so it also loads the shared ~/.claude/skills.
      yield* fs.makeDirectory(`${home}/.config/opencode`, { recursive: true })
      yield* fs.writeFileString(`${home}/.config/opencode/opencode.json`, "{}")
      const environment = MachineEnvironment.layerTest({ homedir: home, cwd: home, env: { PATH: "", XDG_DATA_HOME: `${home}/data` } })
      const host = yield* makeMemoryHost({ tools: ROUTER_FIXTURE })
      yield* Effect.gen(function*() {
        const router = yield* Router
        const hits = yield* router.findSkills({ query: "make a pdf report with a chart" })
        // opencode loads ~/.claude/skills too: one file, an item of each host.
        expect(hits.map((hit) => [hit.name, hit.kind, hit.host, hit.path])).toEqual([
          ["pdf-report", "skill", "claude-code", `${home}/.claude/skills/pdf-report/SKILL.md`],
          ["pdf-report", "skill", "opencode", `${home}/.claude/skills/pdf-report/SKILL.md`]
        ])
        expect((yield* router.findSkills({ query: "make a pdf report", host: "opencode" })).map((hit) => hit.host)).toEqual(["opencode"])
        const route = yield* router.routeSkills({ query: "look over my pull request" })
        expect(Option.map(route.hit, (hit) => hit.name)).toEqual(Option.some("code-review"))
        const body = Option.getOrThrow(route.body)
        if (typeof body === "string") throw new Error(body)
        expect(body.truncated).toBe(true)
        expect(body.text.startsWith("---\nname: code-review\n")).toBe(true)
        expect(body.text.length).toBeLessThanOrEqual(SKILL_BODY_CAP)
      }).pipe(Effect.scoped, Effect.provide(pluginLayer(host, { persist: false }).pipe(Layer.provide(environment))))
    }).pipe(Effect.scoped, Effect.provide(platform)))

  it.live("keeps the index in the catalog dir: written by the first ranking, read by the next process, not written again", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = `${dir}/router.index`
      // A listing without a query ranks nothing: no index is built, read or written.
      const listing = yield* inCatalogDir(dir, ROUTER_FIXTURE, Effect.flatMap(ToolCatalog, (catalog) => catalog.callEntryTool(main, "tools_ls", {})))
      expect(listing).toContain("communication")
      expect(yield* fs.exists(file)).toBe(false)
      const first = yield* inCatalogDir(dir, ROUTER_FIXTURE, Effect.zip(catalogOf, names("post a message in the channel")))
      expect(first[1]).toEqual(["mcp__slack__post_message", "mcp__slack__list_channels", "read_text_file"])
      const written = yield* fs.readFile(file)
      expect(Option.isSome(decodeIndex(written, first[0]))).toBe(true)
      const before = yield* fs.stat(file)
      // A ranking in a new graph reads it and leaves it as it is.
      expect(yield* inCatalogDir(dir, ROUTER_FIXTURE, names("post a message in the channel"))).toEqual(first[1])
      expect(yield* fs.readFile(file)).toEqual(written)
      expect((yield* fs.stat(file)).mtime).toEqual(before.mtime)

      // The next process ranks with what the file holds: an index whose read_text_file says "zebra".
      const documents = routerDocuments(first[0], ROUTER_FIXTURE).map((document) =>
        document.id === "read_text_file" ? { ...document, texts: { ...document.texts, description: "zebra" } } : document
      )
      yield* fs.writeFile(file, encodeIndex(buildIndex(documents), first[0].toolSetKey, indexDigest(first[0])))
      expect(yield* inCatalogDir(dir, ROUTER_FIXTURE, names("zebra"))).toEqual(["read_text_file"])
    }).pipe(Effect.scoped, Effect.provide(platform)))

  it.live("builds the index again over a corrupt or stale file, ranks exactly, and replaces the file", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = `${dir}/router.index`
      yield* fs.writeFileString(file, "not an index")
      const [catalog, hits] = yield* inCatalogDir(dir, ROUTER_FIXTURE, Effect.zip(catalogOf, names("search github code")))
      expect(hits).toEqual(["mcp__github__search_code", "mcp__github__create_issue", "mcp__github__delete_repository"])
      expect(Option.isSome(decodeIndex(yield* fs.readFile(file), catalog))).toBe(true)

      // A truncated file is not trusted either.
      const whole = yield* fs.readFile(file)
      yield* fs.writeFile(file, whole.subarray(0, whole.length - 7))
      expect(yield* inCatalogDir(dir, ROUTER_FIXTURE, names("search github code"))).toEqual(hits)
      expect(yield* fs.readFile(file)).toEqual(whole)

      // A new tool: the file of the old tool set is stale.
      const grown = [...ROUTER_FIXTURE, { name: "mcp__jira__create_ticket", description: "Open a ticket for a bug.", inputSchema: object({}) }]
      const [grownCatalog, ticket] = yield* inCatalogDir(dir, grown, Effect.zip(catalogOf, names("open a bug ticket", 1)))
      expect(ticket).toEqual(["mcp__jira__create_ticket"])
      const rewritten = yield* fs.readFile(file)
      expect(Option.isSome(decodeIndex(rewritten, grownCatalog))).toBe(true)
      expect(decodeIndex(rewritten, catalog)).toEqual(Option.none())
    }).pipe(Effect.scoped, Effect.provide(platform)))
  it.live("reads the kept file piece by piece: a body found damaged, or a file replaced while it is read, is built again, ranks exactly and is rewritten", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = `${dir}/router.index`
      const post = "post a message in the channel"
      const remove = "remove the repository"
      const expected = yield* inCatalogDir(dir, ROUTER_FIXTURE, Effect.zip(names(post), names(remove)))
      expect(expected).toEqual([
        ["mcp__slack__post_message", "mcp__slack__list_channels", "read_text_file"],
        ["mcp__github__delete_repository", "mcp__github__search_code", "mcp__github__create_issue"]
      ])
      const whole = yield* fs.readFile(file)
      const head = Option.getOrThrow(indexHeadBytes(whole, whole.length))

      // The head is whole, every block of the body is not: found by the first read of a block.
      const damaged = Uint8Array.from(whole)
      for (let at = head; at < damaged.length; at++) damaged[at]! ^= 0x5a
      yield* fs.writeFile(file, damaged)
      const catalog = yield* inCatalogDir(dir, ROUTER_FIXTURE, catalogOf)
      const fetched = yield* Effect.gen(function*() {
        const store = yield* RouterIndexStore
        const stored = Option.getOrThrow(yield* store.load(catalog))
        return yield* Effect.flip(store.fetch(stored, { terms: [0], documents: [] }))
      }).pipe(Effect.provide(RouterIndexStore.layer(Option.some(file)).pipe(Layer.provide(CatalogEvents.layer))))
      expect(fetched.reason).toBe("a block of it is damaged")
      expect(yield* inCatalogDir(dir, ROUTER_FIXTURE, names(post))).toEqual(expected[0])
      expect(yield* fs.readFile(file)).toEqual(whole)

      // Replaced (renamed over) between two rankings of one process: the second asks for other
      // postings, which are not read from another file than the head was.
      const second = yield* inCatalogDir(dir, ROUTER_FIXTURE, Effect.gen(function*() {
        const first = yield* names(post)
        yield* fs.writeFile(`${file}.new`, damaged)
        yield* fs.rename(`${file}.new`, file)
        return [first, yield* names(remove)] as const
      }))
      expect(second).toEqual(expected)
      expect(yield* fs.readFile(file)).toEqual(whole)

      // Cut short: the head says how long the file is.
      yield* fs.writeFile(file, whole.subarray(0, whole.length - 8))
      expect(yield* inCatalogDir(dir, ROUTER_FIXTURE, Effect.zip(names(post), names(remove)))).toEqual(expected)
      expect(yield* fs.readFile(file)).toEqual(whole)
    }).pipe(Effect.scoped, Effect.provide(platform)))

  it.live("extends an index read from the file when the host adds a tool, ranking as a process that builds it with all tools", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const ticket: ToolSchema = { name: "mcp__jira__create_ticket", description: "Open a ticket for a bug in the channel.", inputSchema: object({}) }
      const tasks = ["open a bug ticket", "post a message in the channel", "search github code"]
      const expected = yield* inCatalogDir(yield* fs.makeTempDirectoryScoped(), [...ROUTER_FIXTURE, ticket], Effect.forEach(tasks, (task) => names(task, 4)))
      expect(expected[0]![0]).toBe("mcp__jira__create_ticket")
      yield* inCatalogDir(dir, ROUTER_FIXTURE, names(tasks[1]!))
      const host = yield* makeMemoryHost({ tools: ROUTER_FIXTURE })
      const [before, after] = yield* Effect.gen(function*() {
        yield* (yield* ToolCatalog).attach(main)
        // Read from the file piece by piece, then read whole and extended with the new tool.
        const before = yield* names(tasks[1]!, 4)
        yield* host.addTool(ticket)
        return [before, yield* Effect.forEach(tasks, (task) => names(task, 4))] as const
      }).pipe(Effect.scoped, Effect.provide(pluginLayer(host, { dir })))
      expect(before).toEqual(["mcp__slack__post_message", "mcp__slack__list_channels", "read_text_file"])
      expect(after).toEqual(expected)
    }).pipe(Effect.scoped, Effect.provide(platform)))

  it.live("ranks with a tool's new annotations: same tools, other hints, the kept index file is built again", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = `${dir}/router.index`
      const entries = (annotations: ToolSchema["annotations"]): ReadonlyArray<ToolSchema> => [
        { name: "mcp__store__remove_entry", description: "Handles an entry of the store.", inputSchema: object({}) },
        { name: "mcp__store__touch_entry", description: "Handles an entry of the store.", inputSchema: object({}), annotations }
      ]
      const query = "delete the zebra entry"
      const scores = (tools: ReadonlyArray<ToolSchema>) =>
        inCatalogDir(dir, tools, Effect.zip(catalogOf, Effect.flatMap(Router, (router) => router.findTools({ query, k: 2 }, main))))
          .pipe(Effect.map(([catalog, hits]) => [catalog, hits.map((hit) => [hit.name, hit.score])] as const))
      const [plainCatalog, plain] = yield* scores(entries(undefined))
      expect(plain).toEqual([["mcp__store__remove_entry", 0.61], ["mcp__store__touch_entry", 0.38]])
      const before = yield* fs.readFile(file)
      // A title that names the task and a destructive hint: touch_entry now deletes zebras.
      const [hintedCatalog, hinted] = yield* scores(entries({ title: "Zebra", destructiveHint: true }))
      expect(hinted).toEqual([["mcp__store__touch_entry", 1.83], ["mcp__store__remove_entry", 0.49]])
      const after = yield* fs.readFile(file)
      expect(after).not.toEqual(before)
      expect(Option.isSome(decodeIndex(after, hintedCatalog))).toBe(true)
      expect(decodeIndex(after, plainCatalog)).toEqual(Option.none())
      // And back: the file of the hinted tools is not taken for the plain ones.
      expect((yield* scores(entries(undefined)))[1]).toEqual(plain)
    }).pipe(Effect.scoped, Effect.provide(platform)))
})
