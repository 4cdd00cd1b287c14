import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { redactSecrets, unclosedPemHeader } from "../../inventory/domain/secrets.js"
import { cleanText, neutralize } from "../../inventory/domain/untrusted.js"

/** How large a server's log may grow before its oldest half is cut. */
export const LOG_MAX_BYTES = 1024 * 1024

/** How much of an unfinished line is held back for its end: a longer one is written as it is cleaned. */
const MAX_PENDING_BYTES = 64 * 1024

const CUT_MARK = "[tool-map: older output cut]\n"

/**
 * A downstream server's stderr, appended to one file capped at `maxBytes`: when a chunk would
 * pass the cap, the file keeps its newest half and the chunk's tail. The file is tool-map's
 * output, so what the server writes passes the one boundary of untrusted text line by line
 * (secrets redacted, PEM blocks across chunks included; controls such as ESC neutralized), and
 * so do the gateway's own notes, which quote error texts. The child's stderr is a Node stream
 * whose handler must not wait, so the writes are synchronous; a log that cannot be written is
 * given up (the server keeps running), since it is only there for the user to read.
 */
export class StderrLog {
  private size = 0
  private broken = false
  /** The start of a line whose end has not come yet. */
  private pending: Array<Buffer> = []
  private pendingBytes = 0
  /** The header of a PEM block an earlier chunk opened and did not close. */
  private openBlock: string | undefined

  constructor(readonly path: string, private readonly maxBytes: number = LOG_MAX_BYTES) {
    this.guard(() => {
      NodeFs.mkdirSync(NodePath.dirname(path), { recursive: true })
      this.size = NodeFs.existsSync(path) ? NodeFs.statSync(path).size : 0
    })
  }

  /** Appends a line of the gateway's own (a start, an exit), on a line of its own. */
  note(line: string): void {
    if (this.pendingBytes > 0) this.flushPending("\n")
    this.write(Buffer.from(`[tool-map ${new Date().toISOString()}] ${cleanText(line)}\n`))
  }

  /** Appends what the server wrote on stderr; a line is written once it is complete. */
  append(chunk: Buffer): void {
    const end = chunk.lastIndexOf(10)
    if (end < 0) {
      this.pending.push(chunk)
      this.pendingBytes += chunk.length
      if (this.pendingBytes > MAX_PENDING_BYTES) this.flushPending("")
      return
    }
    const lines = this.pending.length === 0 ? chunk.subarray(0, end + 1) : Buffer.concat([...this.pending, chunk.subarray(0, end + 1)])
    this.pending = []
    this.pendingBytes = 0
    this.write(Buffer.from(this.cleaned(lines.toString("utf8"))))
    if (end + 1 < chunk.length) this.append(chunk.subarray(end + 1))
  }

  private flushPending(after: string): void {
    const text = Buffer.concat(this.pending).toString("utf8")
    this.pending = []
    this.pendingBytes = 0
    this.write(Buffer.from(`${this.cleaned(text)}${after}`))
  }

  /**
   * Text of the server's through the secret rule as one piece (a PEM block spans lines), then
   * each line neutralized. A block still open at the end is closed by the next text: its header
   * is put ahead of it, so the rule takes the block's rest (and shows `[redacted]` once more).
   */
  private cleaned(text: string): string {
    // The last line's end stays out of the rule: an open block is redacted to the end of the text.
    const newline = text.endsWith("\n") ? "\n" : ""
    const whole = `${this.openBlock === undefined ? "" : `${this.openBlock}\n`}${text.slice(0, text.length - newline.length)}`
    this.openBlock = unclosedPemHeader(whole)
    const redacted = redactSecrets(whole)
    return `${redacted.split("\n").map((line) => neutralize(line.replace(/\r$/, ""))).join("\n")}${newline}`
  }

  private write(chunk: Buffer): void {
    this.guard(() => {
      if (this.size + chunk.length <= this.maxBytes) {
        NodeFs.appendFileSync(this.path, chunk)
        this.size += chunk.length
        return
      }
      const keep = Math.floor(this.maxBytes / 2)
      const old = NodeFs.existsSync(this.path) ? NodeFs.readFileSync(this.path) : Buffer.alloc(0)
      const joined = Buffer.concat([old, chunk])
      const tail = joined.subarray(Math.max(0, joined.length - keep + CUT_MARK.length))
      const next = Buffer.concat([Buffer.from(CUT_MARK), tail])
      NodeFs.writeFileSync(this.path, next)
      this.size = next.length
    })
  }

  private guard(write: () => void): void {
    if (this.broken) return
    try {
      write()
    } catch {
      // A full disk or a removed directory: the log is a convenience, the server keeps running.
      this.broken = true
    }
  }
}
