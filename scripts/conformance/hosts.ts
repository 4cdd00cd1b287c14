/**
 * The real agent-host CLIs the conformance checks run, pinned in this one place. Host versions
 * move and their answers with them: bump a version here, run `npm run conformance`, and update
 * the README's list of the versions the readers were checked against.
 */
export interface HostPackage {
  /** The npm package. */
  readonly pkg: string
  /** The exact version installed and run. */
  readonly version: string
  /** The executable the package installs under node_modules/.bin. */
  readonly bin: string
}

export const HOSTS = {
  claude: { pkg: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude" },
  codex: { pkg: "@openai/codex", version: "0.171.0", bin: "codex" },
  gemini: { pkg: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  opencode: { pkg: "opencode-ai", version: "1.18.33", bin: "opencode" }
} as const satisfies Record<string, HostPackage>

export type HostName = keyof typeof HOSTS

export const HOST_NAMES = Object.keys(HOSTS) as ReadonlyArray<HostName>
