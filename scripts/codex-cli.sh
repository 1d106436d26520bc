#!/usr/bin/env bash
# Installs the real Codex CLI (version pinned by scripts/codex-cli/package-lock.json) into a cache folder outside
# the workspace, for hooks-codex's differential test; a second run with the same lockfile does nothing. Prints the folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${DSHKIT_CODEX_CLI_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dshkit/codex-cli}"
stamp="$(sha256sum "$here/codex-cli/package-lock.json" | cut -c1-16)"
if [ ! -f "$dir/installed-$stamp" ]; then
  mkdir -p "$dir"
  rm -f "$dir"/installed-*
  cp "$here/codex-cli/package.json" "$here/codex-cli/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  "$dir/node_modules/.bin/codex" --version >/dev/null
  touch "$dir/installed-$stamp"
fi
echo "$dir"
