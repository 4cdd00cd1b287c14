/**
 * Placement inputs: annotation layers merged per field, and classifiers run in priority
 * order. `catalog.ts` combines them with the structural group and category definitions.
 */
import { OVERRIDE_PRIORITY } from "./model.js"
import type {
  Annotation,
  AnnotationLayer,
  AnnotationLayers,
  AnnotationSet,
  Classifier,
  ToolMeta,
  ToolSchema
} from "./model.js"

const META_FIELDS = ["category", "group", "summary", "highRisk"] as const

/** Which layer set each field of a merged `ToolMeta`. */
export type MetaOrigin = { readonly [K in keyof ToolMeta]?: AnnotationLayer }

/** A tool's merged annotation metadata and where each field came from. */
export interface MergedMeta {
  readonly meta: ToolMeta
  readonly origin: MetaOrigin
}

interface Pattern {
  readonly order: number
  readonly regex: RegExp
  readonly meta: ToolMeta
}

interface LayerIndex {
  readonly layer: AnnotationLayer
  readonly exact: ReadonlyMap<string, ReadonlyArray<{ readonly order: number; readonly meta: ToolMeta }>>
  readonly patterns: ReadonlyArray<Pattern>
}

/** Annotations indexed for lookup by tool name. */
export interface AnnotationIndex {
  readonly layers: ReadonlyArray<LayerIndex>
}

const isAnnotationList = (set: AnnotationSet): set is ReadonlyArray<Annotation> => Array.isArray(set)

const entriesOf = (set: AnnotationSet): ReadonlyArray<Annotation> => {
  if (isAnnotationList(set)) return set
  if (set instanceof Map) return [...set].map(([match, meta]) => ({ match, meta }))
  return Object.entries(set as Readonly<Record<string, ToolMeta>>).map(([match, meta]) => ({ match, meta }))
}

// A global or sticky RegExp remembers lastIndex between tests; a copy without those flags does not.
const statelessRegex = (regex: RegExp): RegExp =>
  regex.global || regex.sticky ? new RegExp(regex.source, regex.flags.replace(/[gy]/g, "")) : regex

/** Indexes annotation layers: exact names in maps, patterns in lists, registration order kept. */
export const indexAnnotations = (layers: AnnotationLayers | undefined): AnnotationIndex => {
  const out: Array<LayerIndex> = []
  for (const layer of OVERRIDE_PRIORITY) {
    const set = layers?.[layer]
    if (set === undefined) continue
    const exact = new Map<string, Array<{ order: number; meta: ToolMeta }>>()
    const patterns: Array<Pattern> = []
    entriesOf(set).forEach((annotation, order) => {
      if (typeof annotation.match === "string") {
        const list = exact.get(annotation.match)
        if (list === undefined) exact.set(annotation.match, [{ order, meta: annotation.meta }])
        else list.push({ order, meta: annotation.meta })
      } else {
        patterns.push({ order, regex: statelessRegex(annotation.match), meta: annotation.meta })
      }
    })
    if (exact.size > 0 || patterns.length > 0) out.push({ layer, exact, patterns })
  }
  return { layers: out }
}

const NO_MERGE: MergedMeta = { meta: {}, origin: {} }

/**
 * The metadata of one tool: layers from weakest to strongest (`OVERRIDE_PRIORITY`), and
 * within a layer its annotations in order; a later one wins per field it sets.
 */
export const metaFor = (index: AnnotationIndex, name: string): MergedMeta => {
  if (index.layers.length === 0) return NO_MERGE
  let meta: Record<string, unknown> | undefined
  let origin: Record<string, AnnotationLayer> | undefined
  for (const layer of index.layers) {
    const exact = layer.exact.get(name)
    let hits: ReadonlyArray<{ readonly order: number; readonly meta: ToolMeta }> = exact ?? []
    if (layer.patterns.length > 0) {
      const matched = layer.patterns.filter((pattern) => pattern.regex.test(name))
      if (matched.length > 0) hits = [...hits, ...matched].sort((a, b) => a.order - b.order)
    }
    for (const hit of hits) {
      for (const field of META_FIELDS) {
        const value = hit.meta[field]
        if (value === undefined) continue
        meta ??= {}
        origin ??= {}
        meta[field] = value
        origin[field] = layer.layer
      }
    }
  }
  return meta === undefined ? NO_MERGE : { meta: meta as ToolMeta, origin: origin as MetaOrigin }
}

/** Merges annotation layers for one tool name (for UIs showing what was declared). */
export const mergeMeta = (layers: AnnotationLayers | undefined, name: string): ToolMeta =>
  metaFor(indexAnnotations(layers), name).meta

/** Classifiers by descending priority; equal priorities keep their given order. */
export const orderClassifiers = (classifiers: ReadonlyArray<Classifier>): ReadonlyArray<Classifier> =>
  classifiers
    .map((classifier, order) => ({ classifier, order }))
    .sort((a, b) => (b.classifier.priority ?? 0) - (a.classifier.priority ?? 0) || a.order - b.order)
    .map(({ classifier }) => classifier)

/** A placement field and the classifier that answered it. */
export interface Answer {
  readonly value: string
  readonly by: string
}

/** What the classifiers said about one tool, per field, and which ones threw. */
export interface Classification {
  readonly category?: Answer | undefined
  readonly group?: Answer | undefined
  readonly failed: ReadonlyArray<{ readonly id: string; readonly error: string }>
}

const NO_FAILURES: ReadonlyArray<{ readonly id: string; readonly error: string }> = []

/**
 * Runs ordered classifiers on a tool: for each field, the first classifier that answers it
 * wins. A classifier that throws is skipped for this tool and reported.
 */
export const classifyTool = (ordered: ReadonlyArray<Classifier>, tool: ToolSchema): Classification => {
  let category: Answer | undefined
  let group: Answer | undefined
  let failed: Array<{ id: string; error: string }> | undefined
  for (const classifier of ordered) {
    if (category !== undefined && group !== undefined) break
    let placement
    try {
      placement = classifier.classify(tool)
    } catch (error) {
      failed ??= []
      failed.push({ id: classifier.id, error: error instanceof Error ? error.message : String(error) })
      continue
    }
    if (placement === undefined || placement === null) continue
    const c = segmentName(placement.category)
    const g = segmentName(placement.group)
    if (category === undefined && c !== undefined) category = { value: c, by: classifier.id }
    if (group === undefined && g !== undefined) group = { value: g, by: classifier.id }
  }
  return { category, group, failed: failed ?? NO_FAILURES }
}

/**
 * A category or group name made safe as one path segment: trimmed, runs of whitespace,
 * slashes and control characters replaced by "-". Empty means no answer.
 */
export const segmentName = (raw: string | undefined): string | undefined => {
  if (typeof raw !== "string") return undefined
  // A catalog has few distinct names and asks for each of them once per tool.
  const known = segmentNames.get(raw)
  if (known !== undefined || segmentNames.has(raw)) return known
  const cleaned = raw.trim().replace(/[\s/\\\p{Cc}\p{Cf}]+/gu, "-").replace(/^-+|-+$/g, "")
  const name = cleaned.length === 0 ? undefined : cleaned
  if (segmentNames.size >= SEGMENT_CACHE_SIZE) segmentNames.clear()
  segmentNames.set(raw, name)
  return name
}

const SEGMENT_CACHE_SIZE = 10_000
const segmentNames = new Map<string, string | undefined>()
