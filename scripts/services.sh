#!/usr/bin/env bash
# Makes PostgreSQL and Redis answer at DATABASE_URL / REDIS_URL (CONTRACT.md defaults) on a Debian
# machine without systemd: a server that already answers is used as it is; otherwise a throwaway
# cluster / redis-server is started under $SHELF_SERVICES_DIR, installing the Debian packages first
# when they are missing. Remote URLs are never touched.
#   usage: scripts/services.sh ensure|stop
set -euo pipefail

DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/shelf}"
REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
STATE_DIR="${SHELF_SERVICES_DIR:-/tmp/shelf-services}"
cmd="${1:-ensure}"

# host and port of a URL like scheme://user@host:port/db
url_host() { local rest="${1#*://}"; rest="${rest#*@}"; rest="${rest%%/*}"; echo "${rest%:*}"; }
url_port() { local rest="${1#*://}"; rest="${rest#*@}"; rest="${rest%%/*}"; [[ "$rest" == *:* ]] && echo "${rest##*:}" || echo "$2"; }

PG_HOST="$(url_host "$DATABASE_URL")"; PG_PORT="$(url_port "$DATABASE_URL" 5432)"
REDIS_HOST="$(url_host "$REDIS_URL")"; REDIS_PORT="$(url_port "$REDIS_URL" 6379)"

is_local() { [[ "$1" == "127.0.0.1" || "$1" == "localhost" || "$1" == "[::1]" ]]; }
answers() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

install_missing() {
  local need=()
  [ -n "$(pgbin)" ] || need+=(postgresql)
  command -v redis-server >/dev/null || need+=(redis-server)
  # rsync copies stored bytes in the backup procedure (docs/operations.md "Backups") and its test
  command -v rsync >/dev/null || need+=(rsync)
  if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
      echo "services: ${need[*]} missing and cannot be installed here; install them or use docker compose" >&2
      exit 1
    fi
    echo "services: installing ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
}

start_postgres() {
  local bin data="$STATE_DIR/pgdata"
  bin="$(pgbin)"
  mkdir -p "$STATE_DIR"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$STATE_DIR"
  if [ ! -s "$data/PG_VERSION" ]; then
    as_pg "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  fi
  # -k: a socket directory we own (/var/run/postgresql may not exist without systemd)
  as_pg "$bin/pg_ctl" -D "$data" -l "$STATE_DIR/postgres.log" -w -t 60 \
    -o "-p $PG_PORT -k $STATE_DIR -c listen_addresses=127.0.0.1" start >/dev/null
  echo "services: postgres started on 127.0.0.1:$PG_PORT (data in $data)" >&2
}

start_redis() {
  mkdir -p "$STATE_DIR"
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --dir "$STATE_DIR" \
    --pidfile "$STATE_DIR/redis.pid" --logfile "$STATE_DIR/redis.log" --save '' --appendonly no
  for _ in $(seq 50); do answers 127.0.0.1 "$REDIS_PORT" && break; sleep 0.1; done
  echo "services: redis started on 127.0.0.1:$REDIS_PORT" >&2
}

ensure() {
  local pg_needed=false redis_needed=false
  if is_local "$PG_HOST" && ! answers 127.0.0.1 "$PG_PORT"; then pg_needed=true; fi
  if is_local "$REDIS_HOST" && ! answers 127.0.0.1 "$REDIS_PORT"; then redis_needed=true; fi
  if $pg_needed || $redis_needed; then install_missing; fi
  if $pg_needed; then start_postgres; fi
  if $redis_needed; then start_redis; fi
  return 0
}

stop() {
  if [ -s "$STATE_DIR/pgdata/postmaster.pid" ]; then as_pg "$(pgbin)/pg_ctl" -D "$STATE_DIR/pgdata" -m fast -w stop >/dev/null; echo "services: postgres stopped" >&2; fi
  if [ -s "$STATE_DIR/redis.pid" ]; then kill "$(cat "$STATE_DIR/redis.pid")" 2>/dev/null || true; rm -f "$STATE_DIR/redis.pid"; echo "services: redis stopped" >&2; fi
}

case "$cmd" in
  ensure) ensure ;;
  stop) stop ;;
  *) echo "usage: $0 ensure|stop" >&2; exit 2 ;;
esac
