/**
 * Why `tool-map gateway setup`, `restore` or `status` did not do what was asked. Each carries
 * the host, the file and the reason a user needs, never a value of an env variable or header
 * (the paths and names are the user's own, neutralized by the renderer).
 */
import { Schema } from "effect"

/** The host's config file holds no MCP server to put behind the gateway. */
export class HostHasNoServers extends Schema.TaggedError<HostHasNoServers>()("HostHasNoServers", {
  host: Schema.String,
  scope: Schema.String,
  path: Schema.String,
  /** Servers the host loads from outside this scope (another scope, a plugin), as `name (where; what moves it)`. */
  elsewhere: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
}) {
  get message() {
    const elsewhere = this.elsewhere.length === 0
      ? ""
      : ` It loads ${this.elsewhere.length === 1 ? "a server" : `${this.elsewhere.length} servers`} from elsewhere: ${this.elsewhere.join(", ")}.`
    return `${this.host} loads no MCP server from ${this.path} (${this.scope} scope): there is nothing to put behind the gateway, and nothing was written.${elsewhere}`
  }
}

/** `restore` of a host whose config the gateway was never set up in (or was restored already). */
export class GatewayNotSetUp extends Schema.TaggedError<GatewayNotSetUp>()("GatewayNotSetUp", {
  host: Schema.String,
  scope: Schema.String
}) {
  get message() {
    return `The gateway is not set up for ${this.host} (${this.scope} scope): there is nothing to restore. \`tool-map gateway status\` shows what is set up.`
  }
}

/** The host's config file cannot be read or parsed: nothing is written. */
export class HostConfigUnreadable extends Schema.TaggedError<HostConfigUnreadable>()("HostConfigUnreadable", {
  host: Schema.String,
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The config of ${this.host} at ${this.path} cannot be read: ${this.reason}. Nothing was written.`
  }
}

/**
 * The edit cannot be made so that the file keeps everything else as it was (a layout the
 * editor does not know, a result that would not parse back to what was meant): nothing is written.
 */
export class HostConfigEditUnsafe extends Schema.TaggedError<HostConfigEditUnsafe>()("HostConfigEditUnsafe", {
  host: Schema.String,
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The config of ${this.host} at ${this.path} cannot be edited safely: ${this.reason}. Nothing was written; edit the file by hand or use \`tool-map mcp --print-config ${this.host} --gateway\`.`
  }
}

/** The config file changed while setup or restore was at work: nothing is written. */
export class HostConfigChanged extends Schema.TaggedError<HostConfigChanged>()("HostConfigChanged", {
  host: Schema.String,
  path: Schema.String
}) {
  get message() {
    return `The config of ${this.host} at ${this.path} changed while it was being edited (is the host running and writing it?). Nothing was written; run the command again.`
  }
}

/** A file of the setup (the config, the servers file, the backup, the record) cannot be written. */
export class GatewaySetupWriteFailed extends Schema.TaggedError<GatewaySetupWriteFailed>()("GatewaySetupWriteFailed", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `Cannot write ${this.path}: ${this.reason}. The host's config was left as it was.`
  }
}

/** The record of an earlier setup (in the data dir) cannot be used. */
export class SetupRecordInvalid extends Schema.TaggedError<SetupRecordInvalid>()("SetupRecordInvalid", {
  path: Schema.String,
  reason: Schema.String
}) {
  get message() {
    return `The record of an earlier gateway setup at ${this.path} cannot be used: ${this.reason}.`
  }
}

/** `--scope local` for a host that keeps no servers per project in its user config. */
export class ScopeNotOfHost extends Schema.TaggedError<ScopeNotOfHost>()("ScopeNotOfHost", {
  host: Schema.String,
  scope: Schema.String
}) {
  get message() {
    return `${this.host} has no ${this.scope} scope: only Claude Code keeps servers per project in its user config (--scope local); use --scope user or --scope project.`
  }
}

/** Every failure of the gateway's setup commands. */
export type GatewaySetupError =
  | ScopeNotOfHost
  | HostHasNoServers
  | GatewayNotSetUp
  | HostConfigUnreadable
  | HostConfigEditUnsafe
  | HostConfigChanged
  | GatewaySetupWriteFailed
  | SetupRecordInvalid
