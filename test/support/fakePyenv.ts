import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

// A pyenv installation of files only, for the tests of reading a shim's choice.

/** pyenv 2.4's shim for `root`, byte for byte as `pyenv rehash` writes it. */
export const pyenvShim = (root: string) =>
  [
    "#!/usr/bin/env bash",
    "set -e",
    `[ -n "$PYENV_DEBUG" ] && set -x`,
    "",
    `program="\${0##*/}"`,
    "",
    `export PYENV_ROOT="${root}"`,
    "SHIM_PATH=${0%/*}",
    `if [[ $SHIM_PATH != "${root}/shims" ]]; then`,
    `  export _PYENV_SHIM_PATH="$SHIM_PATH"`,
    "fi",
    `exec "${root}/libexec/pyenv" exec "$program" "$@"`,
    ""
  ].join("\n")

export const write = (file: string, text: string, mode = 0o644) => {
  NodeFs.mkdirSync(NodePath.dirname(file), { recursive: true })
  NodeFs.writeFileSync(file, text, { mode })
}

/**
 * A pyenv root whose `libexec/pyenv` answers "Python 9.9.9" whatever it is asked: a report of
 * 9.9.9 means the shim was run; any other version was read from the files.
 */
export const fakePyenvRoot = (base: string) => {
  const root = NodePath.join(base, "pyenv")
  write(`${root}/shims/python`, pyenvShim(root), 0o755)
  write(`${root}/libexec/pyenv`, "#!/bin/sh\necho 'Python 9.9.9'\n", 0o755)
  for (const version of ["3.11.7", "3.12.1"]) {
    write(`${root}/versions/${version}/bin/python`, `#!/bin/sh\necho 'Python ${version}'\n`, 0o755)
  }
  write(`${root}/version`, "3.11.7\n")
  // pyenv's own pip hook and pyenv-virtualenv's guarded `which` hook, as pyenv ships them.
  write(`${root}/pyenv.d/exec/pip-rehash.bash`, "PYENV_REHASH_COMMAND=\"${PYENV_COMMAND##*/}\"\n")
  write(
    `${root}/plugins/pyenv-virtualenv/etc/pyenv.d/which/conda.bash`,
    [
      "# newer versions of conda share programs from the real prefix",
      `if [ ! -x "\${PYENV_COMMAND_PATH}" ] && [[ "\${PYENV_COMMAND_PATH##*/}" == "conda" ]]; then`,
      `  if [ -d "\${PYENV_ROOT}/versions/\${version}/conda-meta" ]; then`,
      `    PYENV_COMMAND_PATH="/elsewhere/conda"`,
      "  fi",
      "fi",
      ""
    ].join("\n")
  )
  write(`${root}/plugins/.gitignore`, "*\n")
  return root
}

