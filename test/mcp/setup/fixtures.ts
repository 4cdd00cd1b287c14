import type { AgentHostName } from "../../../src/inventory/domain/agentHosts.js"

/** A config per host with comments, other settings, and servers: one with env values and a filter. */
export const HOST_CONFIGS: Readonly<Record<AgentHostName, { readonly file: string; readonly text: string }>> = {
  "claude-code": {
    file: ".claude.json",
    text: `{
  "numStartups": 12,
  "theme": "dark",
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_TOKEN": "ghp_secretvalue0123456789" }
    },
    "docs": {
      "type": "http",
      "url": "https://docs.example.com/mcp",
      "headers": { "Authorization": "Bearer sk-live-headersecret" }
    }
  },
  "projects": {
    "/nowhere": { "allowedTools": [] }
  }
}
`
  },
  codex: {
    file: ".codex/config.toml",
    text: `# Codex settings
model = "gpt-5" # the default model

[mcp_servers.github]
# the GitHub server, three tools only
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
enabled_tools = ["get_issue", "list_issues", "create_issue"]

[mcp_servers.github.env]
GITHUB_TOKEN = "ghp_secretvalue0123456789"

# memory keeps notes
[mcp_servers."mem ory"]
command = "npx"
args = [
  "-y",
  "@modelcontextprotocol/server-memory",
]

[profiles.fast]
model = "gpt-5-mini"
`
  },
  cursor: {
    file: ".cursor/mcp.json",
    text: `// Cursor's MCP servers
{
  "mcpServers": {
    // GitHub, with a token
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_TOKEN": "ghp_secretvalue0123456789" }
    },
    "old": { "command": "old-server", "disabled": true },
    "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
  },
  "other": true
}
`
  },
  gemini: {
    file: ".gemini/settings.json",
    text: `{
  // Gemini CLI settings
  "theme": "Default",
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_TOKEN": "ghp_secretvalue0123456789" },
      "includeTools": ["get_issue", "list_issues"]
    },
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "excludeTools": ["delete_entities"] }
  },
  "general": { "vimMode": true }
}
`
  },
  opencode: {
    file: ".config/opencode/opencode.jsonc",
    text: `{
  "$schema": "https://opencode.ai/config.json",
  // servers
  "mcp": {
    "github": {
      "type": "local",
      "command": ["npx", "-y", "@modelcontextprotocol/server-github"],
      "environment": { "GITHUB_TOKEN": "ghp_secretvalue0123456789" }
    },
    "docs": { "type": "remote", "url": "https://docs.example.com/mcp", "headers": { "Authorization": "Bearer sk-live-headersecret" } }
  },
  "theme": "opencode"
}
`
  }
}

/** The values no output or world-readable file may hold. */
export const SECRETS = ["ghp_secretvalue0123456789", "sk-live-headersecret"]
