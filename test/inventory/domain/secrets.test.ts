import { describe, expect, it } from "@effect/vitest"
import { looksSecret, namesSecret, redactSecrets, unclosedPemHeader } from "../../../src/inventory/domain/secrets.js"
import { normalizeMcpEntry, redactArgs } from "../../../src/inventory/discover/agentHosts/mcp.js"
import { describe as describeItem } from "../../../src/inventory/discover/agentHosts/frontmatterFields.js"

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
    ["ssh key file names", "id_ed25519 id_ed25519.pub known_hosts config"],
    ["a port flag", "--port 8080"],
    ["a short -p flag", "-p 5432"],
    ["a flag that only starts with a secret word", "--keyboard us"],
    ["a token file path", "--token-file /path/to/token"],
    ["a key file path", "--key-file=/path/to/key.pem"],
    ["a switch turning auth off, then an argument", "--no-auth server.js"],
    ["a secret flag followed by another flag", "--password --verbose"],
    ["a secret flag given an env reference", "--token ${GH_TOKEN} --api-key=$API_KEY"],
    ["an assignment of an env reference", "GITHUB_TOKEN=${GITHUB_TOKEN}"],
    ["assignments whose names only contain a secret word inside a segment", "AUTHOR=bob KEYBOARD=us"],
    ["a URL with an @ in its path", "https://host/path@v1"],
    ["a URL with a port and an @ in its path", "https://registry:443/pkg@1.0"],
    ["an email", "user@example.com"],
    ["a package at a version", "npm@10.2.0"]
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

  it("drops the credentials of a URL whose user is empty or whose password holds an @", () => {
    expect(redactSecrets("postgresql://:pgsecretpw@localhost/db")).toBe("postgresql://[redacted]@localhost/db")
    expect(redactSecrets("--db=redis://:Hunter2Pass@r:6379")).toBe("--db=redis://[redacted]@r:6379")
    expect(redactSecrets("postgres://admin:p@ssw0rd@db/x")).toBe("postgres://[redacted]@db/x")
    expect(redactSecrets("a://u:p@h:1?x=y@z b://v:q@s@t/")).toBe("a://[redacted]@h:1?x=y@z b://[redacted]@t/")
  })

  it("drops the value of a secret-named flag, given with = or after a blank", () => {
    expect(redactSecrets("npx server --api-key=plainkey12345 --password hunter2pw"))
      .toBe("npx server --api-key=[redacted] --password [redacted]")
    expect(redactSecrets("--token t1 --secret s1 --key k1 --auth a1 --pass p1 --pwd w1 --passwd d1"))
      .toBe("--token [redacted] --secret [redacted] --key [redacted] --auth [redacted] --pass [redacted] --pwd [redacted] --passwd [redacted]")
    expect(redactSecrets("--access-key k2 --client-secret c2 --api_key=z2 --API-KEY Z3 --Password=P4 --apikey x5"))
      .toBe("--access-key [redacted] --client-secret [redacted] --api_key=[redacted] --API-KEY [redacted] --Password=[redacted] --apikey [redacted]")
    expect(redactSecrets(`--password "two words" --port 8080`)).toBe("--password [redacted] --port 8080")
    expect(redactSecrets("java -Ddb.password=s3cr3t -jar app.jar")).toBe("java -Ddb.password=[redacted] -jar app.jar")
    expect(redactSecrets("--token=${X:-fallback}")).toBe("--token=[redacted]")
  })

  it("drops the value of a secret-named assignment", () => {
    expect(redactSecrets("-e DB_PASS=dbpass1")).toBe("-e DB_PASS=[redacted]")
    expect(redactSecrets("-e API_KEY=x")).toBe("-e API_KEY=[redacted]")
    expect(redactSecrets("PGPASSWORD=pw1 MYSQL_PWD=pw2 AWS_SECRET_ACCESS_KEY=pw3 NODE_AUTH_TOKEN=pw4 db_credentials=pw5"))
      .toBe("PGPASSWORD=[redacted] MYSQL_PWD=[redacted] AWS_SECRET_ACCESS_KEY=[redacted] NODE_AUTH_TOKEN=[redacted] db_credentials=[redacted]")
    expect(redactSecrets("https://h/x?token=abc")).toBe("https://h/x?token=[redacted]")
  })

  it("drops the secret of a label inside a flag's or an assignment's value, not only the label", () => {
    // Found by the canary generator: an agent name made of a directory `x--api-key=X` and a header.
    expect(redactSecrets("x--api-key=CANARY:--header=X-Auth: CANARY,x")).toBe("x--api-key=[redacted]")
    expect(redactSecrets("--api-key=--header=X-Auth: CANARY now")).toBe("--api-key=[redacted] now")
    expect(redactSecrets("TOKEN=--header=X-Auth: Bearer CANARY now")).toBe("TOKEN=[redacted] now")
    expect(redactSecrets("Bash(export API_TOKEN=X-Auth: CANARY), Read")).toBe("Bash(export API_TOKEN=[redacted]), Read")
    // A value that ends in a colon but no secret label takes no more than itself.
    expect(redactSecrets("--token X: see docs")).toBe("--token [redacted] see docs")
  })

  it("removes a whole PEM block, and an unterminated one to the end", () => {
    expect(redactSecrets(`before\n${pem}\nafter`)).toBe("before\n[redacted]\nafter")
    expect(redactSecrets("x -----BEGIN RSA PRIVATE KEY-----\nMIIEow")).toBe("x [redacted]")
  })

  it("names the header of a PEM block a text opens and does not close, for a stream's next chunk", () => {
    expect(unclosedPemHeader("log line\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNz")).toBe("-----BEGIN OPENSSH PRIVATE KEY-----")
    expect(unclosedPemHeader(`before\n${pem}\nafter`)).toBe(undefined)
    expect(unclosedPemHeader(`${pem}\n-----BEGIN RSA PRIVATE KEY-----\n`)).toBe("-----BEGIN RSA PRIVATE KEY-----")
    expect(unclosedPemHeader("no block here")).toBe(undefined)
    // Put ahead of the next chunk, the rule takes the rest of the block.
    expect(redactSecrets("-----BEGIN OPENSSH PRIVATE KEY-----\nZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter")).toBe("[redacted]\nafter")
  })

  it("finds a secret after an earlier call (no regex state leaks between calls)", () => {
    expect(looksSecret(ghp)).toBe(true)
    expect(looksSecret(ghp)).toBe(true)
    expect(redactSecrets(ghp)).toBe("[redacted]")
    expect(redactSecrets(ghp)).toBe("[redacted]")
  })
})

describe("namesSecret", () => {
  it.each(["--password", "--api-key", "--API_KEY", "--access-key", "--client-secret", "-pwd", "--authorization", "--oauth", "DB_PASS", "TOKEN_FILE", "pgpassword"])("names a secret: %s", (name) => {
    expect(namesSecret(name)).toBe(true)
  })

  it.each(["-p", "--port", "--keyboard", "--token-file", "--key-file", "--no-auth", "AUTHOR", "KEYBOARD"])("names no secret: %s", (name) => {
    expect(namesSecret(name)).toBe(false)
  })
})

describe("MCP server arguments", () => {
  it("drops the argument after a secret-named flag, and secrets inside any argument", () => {
    expect(redactArgs(["mcp-server-postgres", "postgresql://:pgsecretpw@localhost/db", "--db=redis://:Hunter2Pass@r:6379", "postgres://admin:p@ssw0rd@db/x"]))
      .toEqual(["mcp-server-postgres", "postgresql://[redacted]@localhost/db", "--db=redis://[redacted]@r:6379", "postgres://[redacted]@db/x"])
    expect(redactArgs(["-e", "DB_PASS=dbpass1", "--key", "keysecret456", "-p", "s3cr3t", "--password", "hunter2pw", "--api-key", "k"]))
      .toEqual(["-e", "DB_PASS=[redacted]", "--key", "[redacted]", "-p", "s3cr3t", "--password", "[redacted]", "--api-key", "[redacted]"])
  })

  it("drops all of one argument's value, blanks and quotes included", () => {
    expect(redactArgs([`--password=two "quoted" words`, "API_KEY=a b"])).toEqual(["--password=[redacted]", "API_KEY=[redacted]"])
  })

  it("keeps the arguments of flags that take no secret", () => {
    const args = ["--port", "8080", "-p", "5432", "--keyboard", "us", "--token-file", "/path", "--no-auth", "server.js", "API_KEY=${API_KEY}", "npm@10.2.0"]
    expect(redactArgs(args)).toEqual(args)
  })

  it("redacts a command given as one string", () => {
    expect(normalizeMcpEntry({ command: "npx server --api-key=plainkey12345 --password hunter2pw" }, "claude").command)
      .toBe("npx server --api-key=[redacted] --password [redacted]")
  })
})

describe("item descriptions", () => {
  it("are redacted, from frontmatter or from the body", () => {
    const key = "sk-" + "proj-SKILLDESCSECRET1234567"
    expect(describeItem(`uses https://bob:skillpw666@host and ${key}`, null)).toBe("uses https://[redacted]@host and [redacted]")
    expect(describeItem(null, `# Title\n\nRun with --token ${ghp} now.\n\nMore.`)).toBe("Title")
    expect(describeItem(null, `Run with --token t0ps3cret\nand DB_PASS=x.\n\nMore.`)).toBe("Run with --token [redacted] and DB_PASS=[redacted]")
  })

  it("are redacted before the cap, so a secret cut by it does not show", () => {
    // Capped first, the text would end in `ghp_` and 6 characters, too short to be recognized.
    expect(describeItem(`${"a".repeat(1010)} ${ghp}`, null)).toBe(`${"a".repeat(1010)} [redacted]`)
  })
})
