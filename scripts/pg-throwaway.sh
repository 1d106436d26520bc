#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benches, in a temp directory, reachable only
# through a unix socket in that directory (no port to collide with anything).
#   scripts/pg-throwaway.sh start [DIR]  → prints the connection string on stdout (DIR defaults to a new temp dir)
#   scripts/pg-throwaway.sh stop DIR     → stops the server and removes DIR
# The server refuses to run as root, so as root it runs as the `postgres` user (Debian's postgresql-15).
set -euo pipefail

find_bin() {
  if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return; fi
  done
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
  echo "pg-throwaway: no initdb/pg_ctl found (install postgresql-15: apt-get install -y postgresql-15, or set PG_BIN)" >&2
  exit 1
}

as_server_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local dir="${1:-}"
  if [ -z "$dir" ]; then dir="$(mktemp -d "${TMPDIR:-/tmp}/dshkit-pg-XXXXXX")"; else mkdir -p "$dir"; fi
  local bin; bin="$(find_bin)"
  chmod 755 "$dir"
  mkdir -p "$dir/data" "$dir/socket"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$dir/data" "$dir/socket"; fi
  # The socket directory is world-writable so any local user (root included) can connect.
  chmod 700 "$dir/data"; chmod 1777 "$dir/socket"
  as_server_user "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_server_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir/socket' -c unix_socket_permissions=0777 -c max_connections=300 -c shared_buffers=64MB" \
    start >/dev/null || { cat "$dir/data/server.log" >&2; exit 1; }
  echo "postgresql://postgres@localhost/postgres?host=$dir/socket"
}

stop() {
  local dir="${1:?usage: pg-throwaway.sh stop DIR}"
  local bin; bin="$(find_bin)"
  if [ -f "$dir/data/postmaster.pid" ]; then as_server_user "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start "${2:-}" ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: pg-throwaway.sh start [DIR] | stop DIR" >&2; exit 2 ;;
esac
