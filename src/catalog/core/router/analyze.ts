/**
 * Text analysis of the router: tool names and texts, and the task an agent describes, become
 * terms. A name is split on `_`, `-`, `__`, `.`, `/`, camelCase and digits (`getPullRequest2`
 * → get, pull, request, 2); every word is lowercased, stop words are dropped and the rest
 * stemmed (Porter), so "creating issues" and `create_issue` meet on `creat` and `issu`.
 * English contractions and the possessive lose their clitic ("I'm" → i, "they're" → they,
 * "user's" → user) or keep it joined ("don't" → dont), so no one- or two-letter term is left.
 */
import { stemmer } from "stemmer"

/**
 * English function words and the filler of a request ("can you please help me find …"): they
 * say nothing about which tool fits. Words that name an action (`find`, `get`, `make`) are not
 * here: they carry the intent (see `intents.ts`).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
  "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
  "can", "could", "did", "do", "does", "doing", "down", "during",
  "each", "either", "etc", "else", "ever", "every",
  "few", "for", "from", "further",
  "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
  "i", "if", "in", "into", "is", "it", "its", "itself",
  "just", "let", "lets", "like", "may", "me", "might", "more", "most", "must", "my", "myself",
  "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out",
  "over", "own", "please", "same", "shall", "she", "should", "so", "some", "such",
  "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those",
  "through", "to", "too", "under", "until", "up", "us", "very",
  "was", "we", "were", "what", "when", "where", "whether", "which", "while", "who", "whom", "why", "will", "with",
  "would", "you", "your", "yours", "yourself", "yourselves",
  "want", "wanna", "need", "needs", "help", "thanks", "hi", "hello", "im", "ive", "id", "dont", "cant", "s", "t",
  // A negation keeps its t joined (see `words`): "doesn't" → doesnt.
  "aint", "arent", "couldnt", "didnt", "doesnt", "hadnt", "hasnt", "havent", "isnt", "mustnt", "neednt", "shouldnt",
  "wasnt", "werent", "wont", "wouldnt"
])

/**
 * The clitics an apostrophe (straight or curly) attaches to the end of an English word: "I'm",
 * "I'd", "we'll", "they're", "I've", "it's"/"user's", and the t of "n't". Left as words they
 * would be one- and two-letter terms that few texts hold, so the rarest, and heaviest, of a task.
 */
const CLITICS: ReadonlySet<string> = new Set(["s", "m", "d", "ll", "re", "ve", "t"])

const isApostrophe = (code: number): boolean => code === 39 || code === 0x2019 || code === 0x2018

/**
 * The clitic that follows the apostrophe at `i` and ends a word there (lowercase), else "".
 * Called at a character that is not part of a word, just after a word.
 */
const cliticAt = (text: string, i: number): string => {
  if (!isApostrophe(text.charCodeAt(i))) return ""
  let end = i + 1
  while (end < text.length && end - i <= 3 && classOf(text, end) !== 0) end++
  if (end < text.length && classOf(text, end) !== 0) return ""
  const clitic = text.slice(i + 1, end).toLowerCase()
  return CLITICS.has(clitic) ? clitic : ""
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u
const DIGIT = /\p{N}/u
const NOT_ASCII = /[^\x00-\x7f]/

/**
 * A text whose words only `words` cuts right: beyond ASCII, or with an apostrophe (the
 * contraction rule). The fast paths over ASCII (`nameKey`, `WordTable`) hand such texts to it.
 */
export const NEEDS_WORDS = /[^\x00-\x7f]|'/

/** 0 not part of a word, 1 lowercase letter (or a letter without case), 2 uppercase letter, 3 digit. */
export const classOf = (text: string, i: number): number => {
  const c = text.charCodeAt(i)
  if (c >= 97 && c <= 122) return 1
  if (c >= 65 && c <= 90) return 2
  if (c >= 48 && c <= 57) return 3
  if (c < 128) return 0
  const char = text[i]!
  // A character beyond the BMP (two surrogates) is not part of a word.
  if (!LETTER_OR_DIGIT.test(char)) return 0
  if (DIGIT.test(char)) return 3
  return char !== char.toLowerCase() ? 2 : 1
}

/**
 * The lowercase words of a text or an identifier, in order (stop words kept): runs of letters
 * and digits, split where the case or the kind changes — lower → Upper (getUser), UPPER →
 * Upper lower (HTTPServer → HTTP Server), letter ↔ digit (v2parse → v 2 parse). A clitic after
 * an apostrophe (see `CLITICS`) is dropped ("we'll" → we), except the t of "n't", which stays
 * joined to its word ("can't" → cant, a stop word).
 */
export const words = (text: string): Array<string> => {
  const out: Array<string> = []
  const n = text.length
  // An ASCII text is lowercased once and its words cut from that copy (one string per word
  // instead of two); beyond ASCII a character's lowercase may depend on its neighbours (the
  // Greek final sigma), so each word is lowercased on its own.
  const lower = NOT_ASCII.test(text) ? undefined : text.toLowerCase()
  let start = -1
  let previous = 0
  for (let i = 0; i <= n; i++) {
    const kind = i < n ? classOf(text, i) : 0
    if (kind === 0) {
      if (start >= 0) {
        const word = lower === undefined ? text.slice(start, i).toLowerCase() : lower.slice(start, i)
        const clitic = i < n ? cliticAt(text, i) : ""
        out.push(clitic === "t" ? `${word}t` : word)
        i += clitic.length
      }
      start = -1
    } else if (start < 0) {
      start = i
    } else {
      const boundary = (previous === 1 && kind === 2) || ((previous === 3) !== (kind === 3)) ||
        (previous === 2 && kind === 2 && i + 1 < n && classOf(text, i + 1) === 1)
      if (boundary) {
        out.push(lower === undefined ? text.slice(start, i).toLowerCase() : lower.slice(start, i))
        start = i
      }
    }
    previous = kind
  }
  return out
}

// Stems of the words seen so far: a catalog repeats its words many times.
const stems = new Map<string, string>()
const MAX_CACHED_STEMS = 200_000

/** The stem of a lowercase word (Porter); digits and one-letter words stay as they are. */
export const stem = (word: string): string => {
  const known = stems.get(word)
  if (known !== undefined) return known
  const out = word.length < 3 || DIGIT.test(word) ? word : stemmer(word)
  if (stems.size >= MAX_CACHED_STEMS) stems.clear()
  stems.set(word, out)
  return out
}

/** The terms of a text: its words without stop words, stemmed, in order (repeats kept). */
export const terms = (text: string): Array<string> => {
  const out: Array<string> = []
  for (const word of words(text)) if (!STOP_WORDS.has(word)) out.push(stem(word))
  return out
}

const NOT_LETTER_OR_DIGIT_ASCII = /[^a-zA-Z0-9]+/g

/**
 * A name as one lowercase key without separators (`Get-File_Info` → `getfileinfo`), for
 * exact-name matches: its words joined. An ASCII name's words (without an apostrophe) are its
 * letters and digits, so its key is those, lowercased, without cutting it into words (a build
 * makes two keys a tool).
 */
export const nameKey = (name: string): string =>
  NEEDS_WORDS.test(name) ? words(name).join("") : name.replace(NOT_LETTER_OR_DIGIT_ASCII, "").toLowerCase()
