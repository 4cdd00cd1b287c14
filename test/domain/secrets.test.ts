import { describe, expect, it } from "@effect/vitest"
import { looksSecret, redactSecrets } from "../../src/domain/secrets.js"

// Built by concatenation so no scanner mistakes this file for a leak.
const ghp = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
const gho = "gho_" + "16C7e42F292c6912E7710c838347Ae178B4a"
const pat = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
const openai = "sk-" + "proj-abcdefghijklmnopqrstuvwxyz012345"
const anthropic = "sk-" + "ant-api03-AbCdEfGhIjKlMnOpQrStUv"
const slackBot = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp"
const slackUser = "xoxp-" + "123456789012-1234567890123-AbCdEfGhIjKl"
const slackApp = "xoxa-" + "2-123456789012-AbCdEfGhIjKl"
const npm = "npm_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
const aws = "AKIA" + "IOSFODNN7EXAMPLE"
const jwt = "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
const pem = "-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"

describe("looksSecret", () => {
  it.each([
    ["a classic GitHub token", ghp],
    ["a GitHub OAuth token", gho],
    ["a fine-grained GitHub PAT", pat],
    ["an OpenAI key", openai],
    ["an Anthropic key", anthropic],
    ["a Slack bot token", slackBot],
    ["a Slack user token", slackUser],
    ["another Slack xox?- token", slackApp],
    ["an npm token", npm],
    ["an AWS access key id", aws],
    ["a JWT", jwt],
    ["a PEM private key block", pem],
    ["a URL with user:password", "https://alice:s3cr3t@example.com/repo.git"],
    ["a token inside a sentence", `export GH_TOKEN=${ghp} # mine`]
  ])("flags %s", (_label, value) => {
    expect(looksSecret(value)).toBe(true)
  })

  it.each([
    ["a POSIX path", "/usr/local/bin/python3.12"],
    ["a Windows path", "C:\\Program Files\\nodejs\\node.exe"],
    ["a version", "v20.1.0"],
    ["a version line", "git version 2.43.0.windows.1"],
    ["sk inside words", "risk-free task-runner-configuration-option disk-usage-analyzer"],
    ["npm config variable names", "npm_config_update_notifier npm_config_prefix"],
    ["a URL without credentials", "https://github.com/owner/repo.git"],
    ["an ssh remote", "git@github.com:owner/repo.git"],
    ["an ssh URL with a user only", "ssh://git@github.com:22/owner/repo.git"],
    ["an uppercase word starting with AKIA but short", "AKIAFOO"],
    ["a name and an email", "Jane Doe <jane@example.com>"],
    ["ssh key file names", "id_ed25519 id_ed25519.pub known_hosts config"]
  ])("leaves %s alone", (_label, value) => {
    expect(looksSecret(value)).toBe(false)
    expect(redactSecrets(value)).toBe(value)
  })
})

describe("redactSecrets", () => {
  it("replaces each token with [redacted] and keeps the surrounding text", () => {
    expect(redactSecrets(`token ${ghp} and ${npm}.`)).toBe("token [redacted] and [redacted].")
    expect(redactSecrets(`key=${openai}`)).toBe("key=[redacted]")
    expect(redactSecrets(`AWS ${aws} here`)).toBe("AWS [redacted] here")
    expect(redactSecrets(`Authorization: Bearer ${jwt}`)).toBe("Authorization: Bearer [redacted]")
    expect(redactSecrets(`${slackBot},${slackUser}`)).toBe("[redacted],[redacted]")
    expect(redactSecrets(`pat ${pat}`)).toBe("pat [redacted]")
  })

  it("keeps the scheme and host of a URL and drops its credentials", () => {
    expect(redactSecrets("clone https://alice:s3cr3t@example.com/repo.git now"))
      .toBe("clone https://[redacted]@example.com/repo.git now")
    expect(redactSecrets(`https://x-access-token:${ghp}@github.com/o/r`))
      .toBe("https://[redacted]@github.com/o/r")
  })

  it("removes a whole PEM block, and an unterminated one to the end", () => {
    expect(redactSecrets(`before\n${pem}\nafter`)).toBe("before\n[redacted]\nafter")
    expect(redactSecrets("x -----BEGIN RSA PRIVATE KEY-----\nMIIEow")).toBe("x [redacted]")
  })

  it("finds a secret after an earlier call (no regex state leaks between calls)", () => {
    expect(looksSecret(ghp)).toBe(true)
    expect(looksSecret(ghp)).toBe(true)
    expect(redactSecrets(ghp)).toBe("[redacted]")
    expect(redactSecrets(ghp)).toBe("[redacted]")
  })
})
