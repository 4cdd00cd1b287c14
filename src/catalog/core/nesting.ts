/**
 * The nesting cap of the JSON the catalog reads: tool definitions (a `--schemas` file, its
 * snapshot, an MCP server's `tools/list`) and the catalog's own data files. `JSON.parse` takes
 * any depth, but every later walk of a value (the definition hash, the token estimate,
 * `JSON.stringify` of a snapshot, Effect's error formatter) recurses once per level and runs out
 * of stack a few thousand levels down: a value deeper than the cap is refused as it is decoded,
 * an input error instead of a crash. Real tool schemas nest a few dozen levels at most.
 */

/** How many levels of arrays and objects a tool definition or a catalog data file may nest. */
export const MAX_NESTING = 256

/**
 * True when `value` nests arrays and objects more than `max` levels deep (a scalar is no level,
 * `{}` and `[]` one, `{"a":[]}` two). The walk stops one level below `max`, so it never recurses
 * deeper than the cap, whatever the value holds.
 */
export const nestsDeeperThan = (value: unknown, max: number = MAX_NESTING): boolean =>
  typeof value === "object" && value !== null && (max < 1 || deeper(value, max - 1))

/** True when a container nests more than `room` levels below itself. */
const deeper = (container: object, room: number): boolean => {
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const item: unknown = container[i]
      if (typeof item === "object" && item !== null && (room === 0 || deeper(item, room - 1))) return true
    }
    return false
  }
  for (const key in container) {
    const item: unknown = (container as Record<string, unknown>)[key]
    if (typeof item === "object" && item !== null && (room === 0 || deeper(item, room - 1))) return true
  }
  return false
}

/** What is wrong with a value {@link nestsDeeperThan} refused, after its subject ("the tool X", "it"). */
export const nestsDeeperText = (max: number = MAX_NESTING): string => `nests deeper than ${max} levels of arrays and objects`
