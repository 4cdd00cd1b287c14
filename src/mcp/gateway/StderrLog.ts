import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/** How large a server's log may grow before its oldest half is cut. */
export const LOG_MAX_BYTES = 1024 * 1024

const CUT_MARK = "[tool-map: older output cut]\n"

/**
 * A downstream server's stderr, appended to one file capped at `maxBytes`: when a chunk would
 * pass the cap, the file keeps its newest half and the chunk's tail. The child's stderr is a
 * Node stream whose handler must not wait, so the writes are synchronous; a log that cannot be
 * written is given up (the server keeps running), since it is only there for the user to read.
 */
export class StderrLog {
  private size = 0
  private broken = false

  constructor(readonly path: string, private readonly maxBytes: number = LOG_MAX_BYTES) {
    this.guard(() => {
      NodeFs.mkdirSync(NodePath.dirname(path), { recursive: true })
      this.size = NodeFs.existsSync(path) ? NodeFs.statSync(path).size : 0
    })
  }

  /** Appends a line of the gateway's own (a start, an exit). */
  note(line: string): void {
    this.append(Buffer.from(`[tool-map ${new Date().toISOString()}] ${line}\n`))
  }

  append(chunk: Buffer): void {
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
