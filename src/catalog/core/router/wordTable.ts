/**
 * The router's word cache: each lowercase word of the indexed texts and its term id. A catalog
 * of tens of thousands of tools holds millions of words but a few thousand distinct ones, so
 * the words of an ASCII text are looked up straight from its characters (hashed and compared
 * in place); only a word met for the first time becomes a string. The words are exactly those
 * of `words` (analyze.ts), which non-ASCII texts and texts with an apostrophe (its contraction
 * rule) go through.
 */
import { NEEDS_WORDS, words } from "./analyze.js"

// 0 not part of a word, 1 lowercase letter, 2 uppercase letter, 3 digit (as analyze.ts's classOf).
const ASCII_CLASS = new Uint8Array(128)
for (let c = 97; c <= 122; c++) ASCII_CLASS[c] = 1
for (let c = 65; c <= 90; c++) ASCII_CLASS[c] = 2
for (let c = 48; c <= 57; c++) ASCII_CLASS[c] = 3


const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/** FNV-1a over a string's UTF-16 code units. */
export const hashOf = (word: string): number => {
  let h = FNV_OFFSET
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME)
  return h
}

/** The lowercase code of an ASCII code. */
const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c)

/** A map from lowercase words to ids (open addressing), read from a text's characters. */
export class WordTable {
  private slots = new Int32Array(4096).fill(-1)
  private hashes: Array<number> = []
  private readonly keys: Array<string> = []
  private readonly values: Array<number> = []

  /** How many words it holds. */
  get size(): number {
    return this.keys.length
  }

  /** The id of a lowercase word, or undefined. */
  get(word: string): number | undefined {
    const h = hashOf(word)
    const mask = this.slots.length - 1
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!
      if (entry < 0) return undefined
      if (this.hashes[entry] === h && this.keys[entry] === word) return this.values[entry]
    }
  }

  private insert(word: string, h: number, value: number): void {
    const entry = this.keys.length
    this.keys.push(word)
    this.values.push(value)
    this.hashes.push(h)
    if (this.keys.length * 2 > this.slots.length) {
      const slots = new Int32Array(this.slots.length * 2).fill(-1)
      const mask = slots.length - 1
      for (let e = 0; e < this.keys.length; e++) {
        let slot = this.hashes[e]! & mask
        while (slots[slot]! >= 0) slot = (slot + 1) & mask
        slots[slot] = e
      }
      this.slots = slots
      return
    }
    const mask = this.slots.length - 1
    let slot = h & mask
    while (this.slots[slot]! >= 0) slot = (slot + 1) & mask
    this.slots[slot] = entry
  }

  /**
   * Appends to `out` the id of each word of `text` in order, leaving out negative ids; a word
   * not met before gets `resolve(word)` and keeps it.
   */
  idsOf(text: string, resolve: (word: string) => number, out: Array<number>): void {
    if (NEEDS_WORDS.test(text)) {
      for (const word of words(text)) {
        let id = this.get(word)
        if (id === undefined) {
          id = resolve(word)
          this.insert(word, hashOf(word), id)
        }
        if (id >= 0) out.push(id)
      }
      return
    }
    const n = text.length
    let start = -1
    let previous = 0
    for (let i = 0; i <= n; i++) {
      const kind = i < n ? ASCII_CLASS[text.charCodeAt(i)]! : 0
      if (kind === 0) {
        if (start >= 0) this.emit(text, start, i, resolve, out)
        start = -1
      } else if (start < 0) {
        start = i
      } else if (
        (previous === 1 && kind === 2) || ((previous === 3) !== (kind === 3)) ||
        (previous === 2 && kind === 2 && i + 1 < n && ASCII_CLASS[text.charCodeAt(i + 1)] === 1)
      ) {
        this.emit(text, start, i, resolve, out)
        start = i
      }
      previous = kind
    }
  }

  /** The word `text[start, end)` (ASCII), lowercased. */
  private emit(text: string, start: number, end: number, resolve: (word: string) => number, out: Array<number>): void {
    let h = FNV_OFFSET
    for (let i = start; i < end; i++) h = Math.imul(h ^ lower(text.charCodeAt(i)), FNV_PRIME)
    const mask = this.slots.length - 1
    const length = end - start
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!
      if (entry < 0) break
      if (this.hashes[entry] !== h) continue
      const key = this.keys[entry]!
      if (key.length !== length) continue
      let same = true
      for (let i = 0; i < length; i++) {
        if (key.charCodeAt(i) !== lower(text.charCodeAt(start + i))) {
          same = false
          break
        }
      }
      if (!same) continue
      const id = this.values[entry]!
      if (id >= 0) out.push(id)
      return
    }
    const word = text.slice(start, end).toLowerCase()
    const id = resolve(word)
    this.insert(word, h, id)
    if (id >= 0) out.push(id)
  }
}
