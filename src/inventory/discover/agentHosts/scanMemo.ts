import type { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import type { Either } from "effect"
import type { FrontmatterDialect, FrontmatterError, ParsedMarkdown } from "../FrontmatterParser.js"

/** A file read within its cap. */
export interface FileRead {
  readonly path: string
  readonly bytes: Uint8Array
  readonly mtime: string | null
  readonly sha256: string
}

/**
 * What one scan has looked at already: stats, listings, files read whole and their parsed
 * frontmatter, by path. Hosts share folders (opencode loads `~/.claude/skills` and
 * `~/.agents/skills`, as Codex and Gemini CLI do the latter), and each would otherwise list,
 * read and parse every file of them again. Made for one scan and dropped with it; the readers
 * never write, so within a scan a path's answer does not change.
 */
export class ScanMemo {
  private readonly stats = new Map<string, Either.Either<FileSystem.File.Info, PlatformError>>()
  private readonly listings = new Map<string, ReadonlyArray<string>>()
  private readonly files = new Map<string, FileRead>()
  private readonly parsed: Record<FrontmatterDialect, Map<string, { readonly file: FileRead; readonly doc: Either.Either<ParsedMarkdown, FrontmatterError> }>> = {
    yaml: new Map(),
    "claude-code": new Map()
  }

  /** The stat of `path` made earlier in this scan (its failure too). */
  stat(path: string): Either.Either<FileSystem.File.Info, PlatformError> | undefined {
    return this.stats.get(path)
  }

  rememberStat(path: string, result: Either.Either<FileSystem.File.Info, PlatformError>): void {
    this.stats.set(path, result)
  }

  /** The names a listing of `path` gave earlier in this scan. */
  listing(path: string): ReadonlyArray<string> | undefined {
    return this.listings.get(path)
  }

  rememberListing(path: string, names: ReadonlyArray<string>): void {
    this.listings.set(path, names)
  }

  /** The file read earlier in this scan, when it fits `maxBytes` (another reader's cap may be larger). */
  file(path: string, maxBytes: number): FileRead | undefined {
    const file = this.files.get(path)
    return file !== undefined && file.bytes.length <= maxBytes ? file : undefined
  }

  rememberFile(file: FileRead): void {
    this.files.set(file.path, file)
  }

  /** The parse of exactly this read of the file in `dialect`, made earlier in this scan. */
  markdown(file: FileRead, dialect: FrontmatterDialect): Either.Either<ParsedMarkdown, FrontmatterError> | undefined {
    const known = this.parsed[dialect].get(file.path)
    return known !== undefined && known.file === file ? known.doc : undefined
  }

  rememberMarkdown(file: FileRead, dialect: FrontmatterDialect, doc: Either.Either<ParsedMarkdown, FrontmatterError>): void {
    this.parsed[dialect].set(file.path, { file, doc })
  }
}
