#!/usr/bin/env bash
# Makes an S3-compatible object store answer at S3_ENDPOINT (default http://127.0.0.1:7480) for the
# tests and a local STORAGE_BACKEND=s3: Ceph's RADOS Gateway on a throwaway one-node cluster, the
# way scripts/services.sh makes PostgreSQL and Redis answer. A gateway that already answers is used
# as it is; otherwise Debian's ceph packages are installed when missing and a cluster is started
# under $SHELF_OBJECTSTORE_DIR: one monitor, one OSD keeping objects in RAM (memstore, capped at
# $SHELF_OBJECTSTORE_BYTES, 2 GiB by default), no authentication inside the cluster, pools of one
# replica, and radosgw's beast frontend on the endpoint's loopback port. An S3 user with the fixed
# test credentials below is created; they are what `npm test` and docs/operations.md use locally.
# A remote S3_ENDPOINT is never touched.
#   usage: scripts/objectstore.sh ensure|stop
#          scripts/objectstore.sh gateway PORT   runs one more radosgw of the cluster in the
#                                                foreground on PORT (fault tests stop and restart it)
set -euo pipefail

S3_ENDPOINT="${S3_ENDPOINT:-http://127.0.0.1:7480}"
STATE_DIR="${SHELF_OBJECTSTORE_DIR:-/tmp/shelf-objectstore}"
DEVICE_BYTES="${SHELF_OBJECTSTORE_BYTES:-2147483648}"
# the fixed credentials of the local test user (never used for anything but this throwaway cluster)
ACCESS_KEY="${SHELF_OBJECTSTORE_ACCESS_KEY:-shelf-test-access}"
SECRET_KEY="${SHELF_OBJECTSTORE_SECRET_KEY:-shelf-test-secret-key-0123456789}"
MON_PORT="${SHELF_OBJECTSTORE_MON_PORT:-6789}"
CONF="$STATE_DIR/ceph.conf"
cmd="${1:-ensure}"

url_host() { local rest="${1#*://}"; rest="${rest%%/*}"; echo "${rest%:*}"; }
url_port() { local rest="${1#*://}"; rest="${rest%%/*}"; [[ "$rest" == *:* ]] && echo "${rest##*:}" || echo 80; }
RGW_HOST="$(url_host "$S3_ENDPOINT")"; RGW_PORT="$(url_port "$S3_ENDPOINT")"

is_local() { [[ "$1" == "127.0.0.1" || "$1" == "localhost" ]]; }
answers() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
say() { echo "objectstore: $*" >&2; }

install_missing() {
  local need=()
  command -v ceph-mon >/dev/null || need+=(ceph-mon)
  command -v ceph-osd >/dev/null || need+=(ceph-osd)
  command -v radosgw >/dev/null || need+=(radosgw)
  command -v ceph >/dev/null || need+=(ceph-common)
  if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
      say "${need[*]} missing and cannot be installed here; install them or point S3_ENDPOINT at a store"
      exit 1
    fi
    say "installing ${need[*]} (about 2.5 minutes)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
}

write_conf() {
  local fsid="$1"
  cat >"$CONF" <<EOF
[global]
fsid = $fsid
mon host = 127.0.0.1:$MON_PORT
mon initial members = a
public addr = 127.0.0.1
ms bind msgr2 = false
auth cluster required = none
auth service required = none
auth client required = none
auth supported = none
run dir = $STATE_DIR/run
log file = $STATE_DIR/log/\$name.log
admin socket = $STATE_DIR/run/\$name.asok
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon allow pool delete = true
mon data avail warn = 1
mon data avail crit = 0

[mon]
mon data = $STATE_DIR/mon/\$cluster-\$id

[osd]
osd data = $STATE_DIR/osd/\$cluster-\$id
osd objectstore = memstore
memstore device bytes = $DEVICE_BYTES

[client]
rgw data = $STATE_DIR/rgw
rgw dns name = 127.0.0.1
rgw enable usage log = false
# deleted objects' data is collected after a minute, not two hours: memstore holds it in RAM until then
rgw gc obj min wait = 60
rgw gc processor period = 60
EOF
}

ceph_() { ceph -c "$CONF" --connect-timeout 20 "$@"; }

# a step that fails says where, instead of set -e's silent exit
trap 'say "failed at line $LINENO (exit $?); logs in $STATE_DIR/log"' ERR

start_cluster() {
  install_missing
  stop_daemons
  rm -rf "$STATE_DIR"
  mkdir -p "$STATE_DIR"/{run,log,mon,osd,rgw}
  local fsid osd_uuid
  fsid="$(cat /proc/sys/kernel/random/uuid)"
  osd_uuid="$(cat /proc/sys/kernel/random/uuid)"
  write_conf "$fsid"

  monmaptool --create --add a "127.0.0.1:$MON_PORT" --fsid "$fsid" "$STATE_DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" -i a --mkfs --monmap "$STATE_DIR/monmap" >/dev/null 2>&1
  ceph-mon -c "$CONF" -i a --pid-file "$STATE_DIR/run/mon.pid"

  # the OSD: made with its uuid (without it, it later fails with 'wrong fsid'); run in the
  # foreground under setsid, as daemonized it exits
  local id
  id="$(ceph_ osd create "$osd_uuid")"
  mkdir -p "$STATE_DIR/osd/ceph-$id"
  ceph-osd -c "$CONF" -i "$id" --mkfs --osd-uuid "$osd_uuid" >/dev/null 2>&1
  setsid ceph-osd -c "$CONF" -i "$id" -f </dev/null >>"$STATE_DIR/log/osd.out" 2>&1 &
  echo $! >"$STATE_DIR/run/osd.pid"
  for _ in $(seq 120); do ceph_ osd dump 2>/dev/null | grep -q "^osd.$id up" && break; sleep 0.5; done
  # memstore's computed weight rounds to 0, and then no placement group maps to the OSD
  ceph_ osd crush reweight "osd.$id" 1.0 >/dev/null 2>&1

  setsid radosgw -c "$CONF" -n client.rgw.shelf -f --rgw-frontends "beast endpoint=127.0.0.1:$RGW_PORT" \
    </dev/null >>"$STATE_DIR/log/rgw.out" 2>&1 &
  echo $! >"$STATE_DIR/run/rgw.pid"
  for _ in $(seq 240); do answers 127.0.0.1 "$RGW_PORT" && break; sleep 0.5; done
  if ! answers 127.0.0.1 "$RGW_PORT"; then
    say "radosgw did not answer on 127.0.0.1:$RGW_PORT; see $STATE_DIR/log"
    exit 1
  fi
  radosgw-admin -c "$CONF" user create --uid shelf-test --display-name "Shelf tests" \
    --access-key "$ACCESS_KEY" --secret-key "$SECRET_KEY" >/dev/null
  say "radosgw started on http://127.0.0.1:$RGW_PORT (cluster in $STATE_DIR, memstore ${DEVICE_BYTES} bytes)"
}

ensure() {
  if ! is_local "$RGW_HOST"; then return 0; fi
  if answers 127.0.0.1 "$RGW_PORT"; then return 0; fi
  start_cluster
}

stop_pid() {
  local file="$STATE_DIR/run/$1.pid" pid
  [ -s "$file" ] || return 0
  pid="$(cat "$file")"
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    say "$1 stopped"
  fi
  rm -f "$file"
}

stop_daemons() {
  stop_pid rgw
  stop_pid osd
  stop_pid mon
}

gateway() {
  local port="${1:?usage: $0 gateway PORT}"
  [ -s "$CONF" ] || { say "no cluster in $STATE_DIR: run '$0 ensure' first"; exit 1; }
  exec radosgw -c "$CONF" -n "client.rgw.port$port" -f --rgw-frontends "beast endpoint=127.0.0.1:$port" \
    --log-file "$STATE_DIR/log/rgw.port$port.log" --admin-socket "$STATE_DIR/run/rgw.port$port.asok"
}

case "$cmd" in
  ensure) ensure ;;
  stop) stop_daemons ;;
  gateway) gateway "${2:-}" ;;
  *) echo "usage: $0 ensure|stop|gateway PORT" >&2; exit 2 ;;
esac
