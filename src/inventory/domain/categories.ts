/**
 * The category table of `tools.md`: data, not branches. A tool's base name (extension and
 * version suffix removed, lower-cased) is looked up in `names`, then matched against
 * `patterns` in table order; the first row that matches wins; nothing matches → `other`.
 */
export interface CategoryRule {
  readonly category: string
  readonly title: string
  readonly names: ReadonlyArray<string>
  readonly patterns: ReadonlyArray<RegExp>
}

export const OTHER_CATEGORY = "other"

export const CATEGORY_TABLE: ReadonlyArray<CategoryRule> = [
  {
    category: "ai-agents",
    title: "AI agent CLIs",
    names: ["claude", "codex", "gemini", "opencode", "cursor-agent", "aider", "goose", "amp", "mcode", "openclaw", "clawhub", "qwen", "copilot", "crush", "cline", "kiro", "ollama", "llm"],
    patterns: [/^mcp-/, /-mcp$/, /^claude-/]
  },
  {
    category: "runtimes",
    title: "Language runtimes",
    names: ["node", "nodejs", "deno", "bun", "python", "pythonw", "pypy", "ruby", "irb", "perl", "php", "java", "javac", "kotlin", "scala", "go", "gofmt", "rustc", "rustup", "dotnet", "lua", "luajit", "erl", "elixir", "iex", "ghc", "ghci", "julia", "r", "rscript", "swift", "tclsh", "wish", "guile", "racket", "ocaml", "zig", "nim", "crystal", "dart", "flutter", "gcc", "g++", "cc", "c++", "clang", "clang++", "gfortran", "tsc", "ts-node", "tsx", "nvcc", "jshell", "pwsh7"],
    patterns: [/^python\d/, /^pip\d?$/, /^ruby\d/, /^perl\d/, /^php\d/, /^lua\d/, /^gcc-\d/, /^g\+\+-\d/, /^clang-\d/, /^x86_64-linux-gnu-/, /^aarch64-linux-gnu-/]
  },
  {
    category: "package-managers",
    title: "Package managers",
    names: ["npm", "npx", "pnpm", "pnpx", "yarn", "corepack", "pip", "pipx", "uv", "uvx", "poetry", "conda", "mamba", "gem", "bundle", "bundler", "cargo", "composer", "apt", "apt-get", "apt-cache", "dpkg", "dnf", "yum", "rpm", "pacman", "apk", "brew", "port", "nix", "nix-env", "snap", "flatpak", "choco", "scoop", "winget", "mvn", "gradle", "sbt", "nuget", "cabal", "stack", "opam", "luarocks", "volta", "nvm", "fnm", "asdf", "mise", "pyenv", "rbenv", "sdk"],
    patterns: [/^pip\d/, /^easy_install/]
  },
  {
    category: "version-control",
    title: "Version control",
    names: ["git", "gh", "glab", "hg", "svn", "git-lfs", "tig", "lazygit", "jj", "fossil", "bzr", "git-shell", "delta", "pre-commit"],
    patterns: [/^git-/]
  },
  {
    category: "containers-cloud",
    title: "Containers and cloud",
    names: ["docker", "docker-compose", "podman", "buildah", "kubectl", "helm", "minikube", "kind", "k3s", "k9s", "terraform", "tofu", "pulumi", "aws", "gcloud", "gsutil", "az", "doctl", "flyctl", "fly", "heroku", "vercel", "netlify", "wrangler", "ansible", "ansible-playbook", "vagrant", "packer", "nerdctl", "containerd", "runc", "ctr", "skopeo", "oc", "eksctl"],
    patterns: [/^docker-/, /^kubectl-/, /^ansible-/]
  },
  {
    category: "build-tools",
    title: "Build tools",
    names: ["make", "gmake", "cmake", "ctest", "cpack", "ninja", "meson", "bazel", "bazelisk", "buck", "scons", "autoconf", "automake", "autoreconf", "libtool", "pkg-config", "ld", "as", "ar", "nm", "objdump", "strip", "esbuild", "vite", "webpack", "rollup", "turbo", "nx", "just", "task", "mage", "ant", "xcodebuild", "msbuild", "node-gyp", "gdb", "lldb", "valgrind", "strace", "ltrace", "perf"],
    patterns: [/^cmake-/]
  },
  {
    category: "editors",
    title: "Editors",
    names: ["vi", "vim", "nvim", "view", "vimdiff", "emacs", "emacsclient", "nano", "pico", "micro", "ed", "code", "code-insiders", "cursor", "subl", "zed", "hx", "helix", "kak", "mcedit", "jed", "joe", "windsurf", "idea", "pycharm", "webstorm"],
    patterns: [/^vim\./]
  },
  {
    category: "shells",
    title: "Shells and terminals",
    names: ["sh", "bash", "zsh", "fish", "dash", "ksh", "tcsh", "csh", "nu", "elvish", "xonsh", "pwsh", "powershell", "cmd", "tmux", "screen", "zellij", "rbash", "busybox", "starship", "direnv", "script"],
    patterns: []
  },
  {
    category: "network",
    title: "Network",
    names: ["curl", "wget", "ssh", "scp", "sftp", "ssh-keygen", "ssh-agent", "ssh-add", "rsync", "nc", "ncat", "netcat", "nmap", "ping", "traceroute", "dig", "nslookup", "host", "ip", "ifconfig", "ss", "netstat", "telnet", "ftp", "httpie", "http", "https", "xh", "socat", "openssl", "tshark", "tcpdump", "iperf3", "mtr", "whois", "aria2c", "grpcurl", "websocat", "ngrok", "tailscale", "wg"],
    patterns: [/^ssh-/]
  },
  {
    category: "databases",
    title: "Databases",
    names: ["psql", "pg_dump", "pg_restore", "pg_ctl", "postgres", "mysql", "mysqldump", "mariadb", "sqlite3", "sqlite", "redis-cli", "redis-server", "mongo", "mongosh", "mongod", "cqlsh", "duckdb", "clickhouse", "influx", "etcdctl", "memcached", "pgbench", "redis-benchmark"],
    patterns: [/^pg_/, /^mysql/, /^redis-/, /^mongo/]
  },
  {
    category: "archives",
    title: "Archives and compression",
    names: ["tar", "gzip", "gunzip", "zcat", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "zip", "unzip", "7z", "7za", "7zr", "rar", "unrar", "lz4", "lzma", "brotli", "cpio", "ar", "pigz", "pbzip2"],
    patterns: [/^zip/, /^lz/]
  },
  {
    category: "text-processing",
    title: "Text processing and search",
    names: ["grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "jq", "yq", "fx", "sort", "uniq", "cut", "tr", "wc", "head", "tail", "less", "more", "cat", "bat", "diff", "patch", "cmp", "comm", "paste", "join", "column", "fmt", "fold", "iconv", "xargs", "find", "fd", "fzf", "tee", "strings", "hexdump", "xxd", "od", "pandoc", "tidy", "xmllint", "csvkit", "mlr", "diff3", "sdiff", "perl-rename", "envsubst", "base64", "sha256sum", "md5sum", "sha1sum"],
    patterns: [/sum$/]
  },
  {
    category: "system",
    title: "System",
    names: ["ls", "cp", "mv", "rm", "mkdir", "rmdir", "ln", "chmod", "chown", "chgrp", "touch", "stat", "df", "du", "ps", "top", "htop", "btop", "kill", "killall", "pkill", "pgrep", "free", "uname", "whoami", "id", "env", "sudo", "su", "doas", "systemctl", "journalctl", "service", "mount", "umount", "lsblk", "fdisk", "date", "sleep", "true", "false", "echo", "printf", "test", "which", "whereis", "file", "uptime", "hostname", "lsof", "dmesg", "crontab", "watch", "timeout", "nohup", "nice", "chroot", "runuser", "setpriv", "useradd", "groupadd", "passwd", "login", "shutdown", "reboot", "tree", "realpath", "readlink", "basename", "dirname", "pwd", "yes", "seq", "tput", "stty", "tty", "clear", "reset", "locale", "install", "mktemp", "sync", "dd", "shred", "split", "csplit", "nproc", "getent", "logger", "xdg-open", "open", "pbcopy", "pbpaste", "launchctl", "defaults", "sw_vers", "diskutil"],
    patterns: [/^systemd-/, /^ls[a-z]+$/, /^dpkg-/, /^update-/]
  }
]

/** Categories in the order `tools.md` lists them, `other` last. */
export const CATEGORY_ORDER: ReadonlyArray<string> = [...CATEGORY_TABLE.map((rule) => rule.category), OTHER_CATEGORY]

const TITLES = new Map<string, string>([
  ...CATEGORY_TABLE.map((rule) => [rule.category, rule.title] as const),
  [OTHER_CATEGORY, "Other"]
])

/** The human title of a category. */
export const categoryTitle = (category: string): string => TITLES.get(category) ?? category

const BY_NAME = new Map<string, string>()
for (const rule of CATEGORY_TABLE) {
  for (const name of rule.names) if (!BY_NAME.has(name)) BY_NAME.set(name, rule.category)
}

const WINDOWS_EXTENSION = /\.(exe|cmd|bat|com|ps1|vbs|msc)$/i
const VERSION_SUFFIX = /(?<=[a-z+])[-.]?\d+(\.\d+)*$/

/** The lookup key of a file name: lower-cased, Windows extension and version suffix removed. */
export const baseToolName = (fileName: string): string =>
  fileName.toLowerCase().replace(WINDOWS_EXTENSION, "")

/** The category of a tool by its file name. */
export const categorize = (fileName: string): string => {
  const base = baseToolName(fileName)
  const exact = BY_NAME.get(base) ?? BY_NAME.get(base.replace(VERSION_SUFFIX, ""))
  if (exact !== undefined) return exact
  for (const rule of CATEGORY_TABLE) {
    if (rule.patterns.some((pattern) => pattern.test(base))) return rule.category
  }
  return OTHER_CATEGORY
}
