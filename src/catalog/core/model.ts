/**
 * Types of the tool catalog: the tool schemas it is built from, the metadata that places
 * them, and the tree `/category/group/tool` it produces.
 *
 * Everything here is plain immutable data, so a catalog can be cached, compared and
 * serialized (the manifest file) without carrying any behaviour.
 */
import { Schema } from "effect"

/**
 * MCP tool annotations. They come from the server that declares the tool, so they are
 * untrusted hints: they may raise a tool's risk, never lower it (see `risk.ts`).
 */
export interface ToolAnnotations {
  readonly title?: string | undefined
  readonly readOnlyHint?: boolean | undefined
  readonly destructiveHint?: boolean | undefined
  readonly idempotentHint?: boolean | undefined
  readonly openWorldHint?: boolean | undefined
}

/** A tool definition as a host registers it or an MCP server lists it. */
export interface ToolSchema {
  readonly name: string
  /** Untrusted text: sanitized and capped before the model sees it. */
  readonly description: string
  /** The JSON Schema of the arguments, kept verbatim. */
  readonly inputSchema: unknown
  readonly annotations?: ToolAnnotations | undefined
  /** The display name an MCP server may give a tool (untrusted, as the description is). */
  readonly title?: string | undefined
  /** The JSON Schema of the tool's structured result, kept verbatim (hosts do not show it to the model). */
  readonly outputSchema?: unknown
}

/** Decodes MCP tool annotations; unknown keys are dropped. */
export const ToolAnnotationsSchema = Schema.Struct({
  title: Schema.optional(Schema.String),
  readOnlyHint: Schema.optional(Schema.Boolean),
  destructiveHint: Schema.optional(Schema.Boolean),
  idempotentHint: Schema.optional(Schema.Boolean),
  openWorldHint: Schema.optional(Schema.Boolean)
})

/**
 * Decodes one tool schema from JSON (a schemas file or an MCP `tools/list` entry): a missing
 * description becomes `""`, a missing `inputSchema` an empty object schema. The members come
 * out in this order (name, description, inputSchema, annotations, title, outputSchema), the
 * order the by-hand decode of `schemasFile.ts` keeps too.
 */
export const ToolSchemaFromJson = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1)),
  description: Schema.optionalWith(Schema.String, { default: () => "" }),
  inputSchema: Schema.optionalWith(Schema.Unknown, { default: () => ({ type: "object" }) }),
  annotations: Schema.optional(ToolAnnotationsSchema),
  title: Schema.optional(Schema.String),
  outputSchema: Schema.optional(Schema.Unknown)
})

/**
 * Metadata that places and describes a tool. Every field is optional: an annotation sets
 * only what it knows, and layers merge per field (see `OVERRIDE_PRIORITY`).
 */
export interface ToolMeta {
  readonly category?: string | undefined
  readonly group?: string | undefined
  /** One-line summary shown instead of the one derived from the description. */
  readonly summary?: string | undefined
  /** An explicit risk decision: wins over every heuristic (see `risk.ts`). */
  readonly highRisk?: boolean | undefined
}

/** Decodes a `ToolMeta` (metadata stores, package declarations). */
export const ToolMetaSchema = Schema.Struct({
  category: Schema.optional(Schema.String),
  group: Schema.optional(Schema.String),
  summary: Schema.optional(Schema.String),
  highRisk: Schema.optional(Schema.Boolean)
})

/**
 * Where an annotation comes from: a package's declaration, a plugin at run time, or the
 * user's edit. Later layers win per field: user over runtime over package.
 */
export type AnnotationLayer = "package" | "runtime" | "user"

/** Annotation layers from weakest to strongest: a later layer wins per field. */
export const OVERRIDE_PRIORITY: ReadonlyArray<AnnotationLayer> = ["package", "runtime", "user"]

/** The category of groups that nothing placed. */
export const UNCATEGORIZED = "uncategorized"

/** The group of tools that have no group of their own. */
export const MISC_GROUP = "misc"

/** One annotation: metadata for the tool named `match` (exact) or every name `match` tests. */
export interface Annotation {
  readonly match: string | RegExp
  readonly meta: ToolMeta
  /** Who declared it (a package or plugin name), for UIs. */
  readonly source?: string | undefined
}

/**
 * The annotations of one layer: a list applied in order (later wins per field), or a map
 * from exact tool name to metadata.
 */
export type AnnotationSet =
  | ReadonlyArray<Annotation>
  | ReadonlyMap<string, ToolMeta>
  | Readonly<Record<string, ToolMeta>>

/** Annotations per layer. */
export type AnnotationLayers = { readonly [L in AnnotationLayer]?: AnnotationSet | undefined }

/** What a classifier says about a tool; a missing field leaves it to the next classifier. */
export interface Placement {
  readonly category?: string | undefined
  readonly group?: string | undefined
}

/**
 * A placement rule. Classifiers run by descending `priority` (ties keep registration
 * order); for each field the first classifier that answers it wins.
 */
export interface Classifier {
  readonly id: string
  readonly priority?: number | undefined
  readonly classify: (tool: ToolSchema) => Placement | undefined
}

/**
 * A category with its description. With `tools` it is an alias category: a view that names
 * exact tools (e.g. a capability pack), which keep their home elsewhere in the tree.
 * With `groups` it claims those groups when nothing more specific places their tools.
 */
export interface CategoryDefinition {
  readonly name: string
  readonly description: string
  readonly tools?: ReadonlyArray<string> | undefined
  readonly groups?: ReadonlyArray<string> | undefined
}

/** Why a description was altered before the model sees it. */
export type SanitizeFlag = "tag-characters" | "zero-width" | "bidi" | "ansi" | "control" | "truncated"

/** One tool in the catalog: a leaf of the tree. */
export interface ToolEntry {
  readonly kind: "tool"
  /** The full tool name, as the host calls it. */
  readonly name: string
  /** The name without its `mcp__server__` prefix. */
  readonly shortName: string
  /** `/category/group/segment`; the segment is the short name unless two tools share it. */
  readonly path: string
  readonly category: string
  readonly group: string
  /** One line, from the annotation's summary or the description's first sentence. */
  readonly summary: string
  /** The sanitized, length-capped description. */
  readonly description: string
  readonly highRisk: boolean
  /** The facts behind the risk decision, each a short sentence (see `risk.ts`). */
  readonly riskEvidence: ReadonlyArray<string>
  /** Estimated tokens of the tool's schema (see `tokens.ts`). */
  readonly tokens: number
  /** SHA-256 of the canonical JSON of the whole original definition (see `definitions.ts`). */
  readonly definitionHash: string
  /** What the sanitizer removed or cut, in a fixed order. */
  readonly flags: ReadonlyArray<SanitizeFlag>
  /** The merged annotation metadata that applied to this tool. */
  readonly meta: ToolMeta
  /** Always 1: lets every node kind be counted alike. */
  readonly toolCount: 1
}

/** A group: tools of one server, plugin or annotation group, inside one category. */
export interface GroupNode {
  readonly kind: "group"
  readonly name: string
  readonly category: string
  /** `/category/group` */
  readonly path: string
  readonly children: ReadonlyArray<ToolEntry>
  readonly toolCount: number
  readonly tokens: number
}

/** A home category: each tool lives under exactly one of these. */
export interface CategoryNode {
  readonly kind: "category"
  readonly name: string
  readonly description: string
  /** `/category` */
  readonly path: string
  readonly children: ReadonlyArray<GroupNode>
  readonly toolCount: number
  readonly tokens: number
}

/** An alias category: a view naming exact tools that live elsewhere (not a home). */
export interface AliasNode {
  readonly kind: "alias"
  readonly name: string
  readonly description: string
  /** `/alias` */
  readonly path: string
  /** The named tools that exist, in the order the definition lists them. */
  readonly children: ReadonlyArray<ToolEntry>
  /** Names the definition lists that are not in the catalog. */
  readonly missing: ReadonlyArray<string>
  readonly toolCount: number
  readonly tokens: number
}

/** The root `/`: home categories only (aliases are in `Catalog.aliases`). */
export interface RootNode {
  readonly kind: "root"
  readonly name: ""
  readonly path: "/"
  readonly children: ReadonlyArray<CategoryNode>
  readonly toolCount: number
  readonly tokens: number
}

/** Any node of the tree, or an alias view. */
export type CatalogNode = RootNode | CategoryNode | GroupNode | ToolEntry | AliasNode

/** Something the build noticed about its input. */
export interface CatalogDiagnostic {
  readonly kind: "duplicate-name" | "empty-name" | "alias-name-taken" | "classifier-failed"
  readonly name: string
  readonly detail: string
}

/** A built catalog. */
export interface Catalog {
  readonly root: RootNode
  /** Tool by full name. */
  readonly byName: ReadonlyMap<string, ToolEntry>
  /** Node by path: `/`, `/cat`, `/cat/group`, `/cat/group/tool`, `/alias`. */
  readonly byPath: ReadonlyMap<string, CatalogNode>
  /** Home categories in listing order (defined order, then others by name, uncategorized last). */
  readonly categories: ReadonlyMap<string, CategoryNode>
  /** Alias categories by name, in definition order. */
  readonly aliases: ReadonlyMap<string, AliasNode>
  /** Group nodes by group name (one name may sit in several categories). */
  readonly groups: ReadonlyMap<string, ReadonlyArray<GroupNode>>
  /** Every tool once, in tree order. */
  readonly tools: ReadonlyArray<ToolEntry>
  readonly totalTokens: number
  /** Hash of the sorted definition hashes: equal for equal tool sets. */
  readonly toolSetKey: string
  readonly diagnostics: ReadonlyArray<CatalogDiagnostic>
}

/**
 * A target prefix owned by a plugin (`"cap:"`). `resolve` receives the rest of the target
 * and returns ordinary targets (tool names, paths, group names) to resolve instead, or
 * `undefined` to pass to the next resolver with the same prefix.
 */
export interface Resolver {
  readonly prefix: string
  readonly resolve: (rest: string, catalog: Catalog) => ReadonlyArray<string> | undefined
}

/** What a target names, with the tools it stands for (in tree order, each once). */
export type Resolution =
  | { readonly kind: "root"; readonly target: string; readonly node: RootNode; readonly tools: ReadonlyArray<ToolEntry> }
  | {
    readonly kind: "category"
    readonly target: string
    readonly node: CategoryNode
    readonly tools: ReadonlyArray<ToolEntry>
  }
  | { readonly kind: "alias"; readonly target: string; readonly node: AliasNode; readonly tools: ReadonlyArray<ToolEntry> }
  | {
    readonly kind: "group"
    readonly target: string
    /** The first of `nodes`. */
    readonly node: GroupNode
    /** Every group of that name: a bare group name may sit in several categories. */
    readonly nodes: ReadonlyArray<GroupNode>
    readonly tools: ReadonlyArray<ToolEntry>
  }
  | { readonly kind: "tool"; readonly target: string; readonly node: ToolEntry; readonly tools: ReadonlyArray<ToolEntry> }
  | {
    readonly kind: "resolver"
    readonly target: string
    readonly prefix: string
    /** The ordinary targets the resolver returned. */
    readonly targets: ReadonlyArray<string>
    /** Those of `targets` that named nothing. */
    readonly unresolved: ReadonlyArray<string>
    readonly tools: ReadonlyArray<ToolEntry>
  }
  | { readonly kind: "unknown"; readonly target: string; readonly suggestions: ReadonlyArray<string> }

/** The definition of an entry tool named `Name`, in the shape hosts register tools with. */
export interface ToolDefinitionOf<Name extends string> {
  readonly name: Name
  readonly description: string
  /** JSON Schema of the arguments. */
  readonly inputSchema: {
    readonly type: "object"
    readonly properties: Readonly<Record<string, unknown>>
    readonly required: ReadonlyArray<string>
    readonly additionalProperties: false
  }
}
