/**
 * The router's general-English lexicon: for a word, the terms WordNet relates to it in the
 * word's common senses (synonyms, hypernyms, derivations, similar adjectives — see
 * `bench/data/build-lexicon.ts`, which generates `lexiconData.ts`). It bridges a task's words
 * and a description's ("photo" → "picture", "purchase" → "buy") where the catalog itself has
 * no statistics to learn it from. Read from its text on first use.
 */
import { LEXICON_TEXT } from "./lexiconData.js"

let entries: Map<string, ReadonlyArray<string>> | undefined

const NONE: ReadonlyArray<string> = []

const entriesOf = (): Map<string, ReadonlyArray<string>> => {
  if (entries === undefined) {
    entries = new Map()
    for (const line of LEXICON_TEXT.split("\n")) {
      const space = line.indexOf(" ")
      entries.set(line.slice(0, space), line.slice(space + 1).split(" "))
    }
  }
  return entries
}

/**
 * The base forms a lowercase word may be an inflection of, itself first: WordNet's entries are
 * lemmas ("entity", "store"), a task says "entities", "stored". Keyed by lemma, not by stem, so
 * that "new" does not take the relatives of "news".
 */
const baseForms = (word: string): Array<string> => {
  const out = [word]
  const cut = (suffix: string, replacement: string) => {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) out.push(word.slice(0, word.length - suffix.length) + replacement)
  }
  cut("ies", "y")
  cut("es", "")
  cut("s", "")
  cut("ied", "y")
  cut("ed", "")
  cut("ed", "e")
  cut("ing", "")
  cut("ing", "e")
  return out
}

/** The terms (stemmed, lowercase) related to a lowercase word, none when the lexicon lacks it. */
export const relatedTerms = (word: string): ReadonlyArray<string> => {
  const known = entriesOf()
  for (const form of baseForms(word)) {
    const related = known.get(form)
    if (related !== undefined) return related
  }
  return NONE
}
