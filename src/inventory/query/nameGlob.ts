/**
 * The glob of `query tools --name`, matched without backtracking: the glob is compiled to a
 * small automaton that is run over the name one character at a time with the set of states it
 * may be in (a Pike VM). The work is at most the name's length times the glob's, whatever the
 * two hold, where a backtracking matcher (picomatch's regular expression) is exponential on
 * `*a*a*a*a*a*b` against a long name of `a`s.
 *
 * The syntax: `*` any run of characters (a leading dot included), `?` one character, `[abc]`,
 * `[a-z]` and `[!a-z]` (or `[^a-z]`) a class, `{a,b}` alternatives (nested), `\` makes the next
 * character literal. A `[` without its `]`, and a `{` without its `}` or a comma, are literal.
 */

/** The longest `--name` glob accepted, in characters: room for any real pattern, and a bound on the work per name. */
export const MAX_NAME_GLOB_LENGTH = 1024

type Test = (char: string) => boolean

type Node =
  | { readonly _tag: "One"; readonly test: Test }
  | { readonly _tag: "Star" }
  | { readonly _tag: "Alt"; readonly options: ReadonlyArray<ReadonlyArray<Node>> }

type Instruction =
  | { readonly op: "one"; readonly test: Test; readonly next: number }
  | { readonly op: "split"; readonly next: Array<number> }
  | { readonly op: "match" }

const anyChar: Test = () => true

/** Where the class opened at `open` ends (the index of its `]`), or -1 when it is not closed. */
const classEnd = (chars: ReadonlyArray<string>, open: number): number => {
  let at = open + 1
  if (chars[at] === "!" || chars[at] === "^") at++
  // A `]` right after the opening (or its negation) is a member, not the end.
  if (chars[at] === "]") at++
  for (; at < chars.length; at++) {
    if (chars[at] === "\\") at++
    else if (chars[at] === "]") return at
  }
  return -1
}

const classTest = (chars: ReadonlyArray<string>, open: number, close: number): Test => {
  let at = open + 1
  const negated = chars[at] === "!" || chars[at] === "^"
  if (negated) at++
  const ranges: Array<readonly [number, number]> = []
  const member = (): number => {
    if (chars[at] === "\\" && at + 1 < close) at++
    return chars[at++]!.codePointAt(0)!
  }
  let first = true
  while (at < close && (first || chars[at] !== "]")) {
    first = false
    const low = member()
    if (chars[at] === "-" && at + 1 < close) {
      at++
      const high = member()
      ranges.push(low <= high ? [low, high] : [high, low])
    } else {
      ranges.push([low, low])
    }
  }
  return (char) => {
    const point = char.codePointAt(0)!
    return ranges.some(([low, high]) => point >= low && point <= high) !== negated
  }
}

/**
 * The braces that form alternatives, found in one pass: each `{` that has a matching `}` and a
 * comma at its own depth, with the positions of those commas. Escapes and classes are skipped.
 */
const braceGroups = (chars: ReadonlyArray<string>) => {
  const closes = new Map<number, number>()
  const commas = new Map<number, Array<number>>()
  const open: Array<{ readonly at: number; readonly commas: Array<number> }> = []
  for (let at = 0; at < chars.length; at++) {
    const char = chars[at]
    if (char === "\\") at++
    else if (char === "[") {
      const end = classEnd(chars, at)
      if (end >= 0) at = end
    } else if (char === "{") open.push({ at, commas: [] })
    else if (char === "," && open.length > 0) open[open.length - 1]!.commas.push(at)
    else if (char === "}" && open.length > 0) {
      const group = open.pop()!
      if (group.commas.length > 0) {
        closes.set(group.at, at)
        commas.set(group.at, group.commas)
      }
    }
  }
  return { closes, commas }
}

const parse = (chars: ReadonlyArray<string>, caseInsensitive: boolean): ReadonlyArray<Node> => {
  const { closes, commas } = braceGroups(chars)
  const fold = (test: Test): Test =>
    caseInsensitive ? (char) => test(char) || test(char.toLowerCase()) || test(char.toUpperCase()) : test
  const literal = (char: string): Test => {
    if (!caseInsensitive) return (other) => other === char
    const lower = char.toLowerCase()
    return (other) => other.toLowerCase() === lower
  }
  const sequence = (from: number, to: number): Array<Node> => {
    const nodes: Array<Node> = []
    for (let at = from; at < to; at++) {
      const char = chars[at]!
      const close = closes.get(at)
      if (char === "*") {
        if (nodes[nodes.length - 1]?._tag !== "Star") nodes.push({ _tag: "Star" })
      } else if (char === "?") nodes.push({ _tag: "One", test: anyChar })
      else if (char === "\\" && at + 1 < to) nodes.push({ _tag: "One", test: literal(chars[++at]!) })
      else if (char === "[" && classEnd(chars, at) >= 0 && classEnd(chars, at) < to) {
        const end = classEnd(chars, at)
        nodes.push({ _tag: "One", test: fold(classTest(chars, at, end)) })
        at = end
      } else if (close !== undefined) {
        const bounds = [at, ...commas.get(at)!, close]
        nodes.push({ _tag: "Alt", options: bounds.slice(1).map((end, index) => sequence(bounds[index]! + 1, end)) })
        at = close
      } else nodes.push({ _tag: "One", test: literal(char) })
    }
    return nodes
  }
  return sequence(0, chars.length)
}

/** The automaton of a parsed glob; instruction 0 is the match, the returned index the start. */
const compile = (nodes: ReadonlyArray<Node>) => {
  const program: Array<Instruction> = [{ op: "match" }]
  const emit = (instruction: Instruction) => program.push(instruction) - 1
  const sequence = (sequenceNodes: ReadonlyArray<Node>, next: number): number => {
    let start = next
    for (let index = sequenceNodes.length - 1; index >= 0; index--) {
      const node = sequenceNodes[index]!
      if (node._tag === "One") start = emit({ op: "one", test: node.test, next: start })
      else if (node._tag === "Star") {
        const loop: Array<number> = []
        const split = emit({ op: "split", next: loop })
        loop.push(emit({ op: "one", test: anyChar, next: split }), start)
        start = split
      } else {
        const after = start
        start = emit({ op: "split", next: node.options.map((option) => sequence(option, after)) })
      }
    }
    return start
  }
  return { program, start: sequence(nodes, 0) }
}

/**
 * A matcher of whole names for `glob` (case-insensitive for Windows names). Each call runs in
 * time proportional to the name's length times the glob's.
 */
export const compileNameGlob = (glob: string, options: { readonly caseInsensitive: boolean }): (name: string) => boolean => {
  const { program, start } = compile(parse(Array.from(glob), options.caseInsensitive))
  const seen = new Float64Array(program.length)
  let generation = 0
  const addState = (list: Array<number>, state: number) => {
    const pending = [state]
    while (pending.length > 0) {
      const current = pending.pop()!
      if (seen[current] === generation) continue
      seen[current] = generation
      const instruction = program[current]!
      if (instruction.op === "split") {
        for (let index = instruction.next.length - 1; index >= 0; index--) pending.push(instruction.next[index]!)
      } else list.push(current)
    }
  }
  return (name) => {
    generation++
    let states: Array<number> = []
    addState(states, start)
    for (const char of name) {
      generation++
      const next: Array<number> = []
      for (const state of states) {
        const instruction = program[state]!
        if (instruction.op === "one" && instruction.test(char)) addState(next, instruction.next)
      }
      if (next.length === 0) return false
      states = next
    }
    return states.includes(0)
  }
}
