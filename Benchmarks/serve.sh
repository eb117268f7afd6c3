#!/usr/bin/env bash
# `storedesk serve` under load from wrk on loopback, beside nginx answering a static `success` to the same
# wrk in the same run (this machine's HTTP ceiling); then the payment simulation with its callbacks POSTed
# to a real PHP game server, beside the same simulation with StoreDesk's in-process game server.
# Figures, not pass/fail. Servers listen on 127.0.0.1 only and are stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/.build/release/storedesk}
SECONDS_LOAD=${SECONDS_LOAD:-10}
CONNECTIONS=${CONNECTIONS:-64}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

. Benchmarks/common.sh

# The store: the demo dataset, with its first app's key signing every body.
XDG_DATA_HOME="$work/xdg" "$BIN" check >/dev/null
cp "$work/xdg/storedesk/storedesk.sqlite" "$work/store.sqlite"
app=$(sqlite3 "$work/store.sqlite" "SELECT id FROM app ORDER BY id LIMIT 1")
key=$(sqlite3 "$work/store.sqlite" "SELECT app_key FROM app WHERE id = '$app'")
product=$(sqlite3 "$work/store.sqlite" "SELECT id FROM product WHERE app_id = '$app' AND type = 'consumable' ORDER BY id LIMIT 1")

bodies=${BODIES:-200000}
make_bodies "$bodies" "$app" "$key" "$product" > "$work/bodies.txt"
write_post_lua "$work/post.lua"
load() { wrk_post "$work/post.lua" "$work/bodies.txt" "$1" "$CONNECTIONS" 0; } # url -> "rps p50 p99 requests non2xx"
start_nginx "$work/nginx"; nport=$nginx_port

# serve: the store above, and BEFORE=BINARY (optional) on a copy of it, e.g. the release before a change.
start_serve "$BIN" "$work/store.sqlite" "$work/serve.log"; spid=$started_pid; sport=$started_port
if [ -n "${BEFORE:-}" ]; then
  # Its own demo store (a store a newer binary migrated is refused by an older one); the demo's apps, keys
  # and products are the same, so the same bodies verify.
  XDG_DATA_HOME="$work/xdg-before" "$BEFORE" check >/dev/null
  cp "$work/xdg-before/storedesk/storedesk.sqlite" "$work/before.sqlite"
  [ "$(sqlite3 "$work/before.sqlite" "SELECT app_key FROM app WHERE id = '$app'")" = "$key" ] || echo "  BEFORE's demo store signs with another key" >&2
  start_serve "$BEFORE" "$work/before.sqlite" "$work/before.log"; bpid=$started_pid; bport=$started_port
fi

echo "== serve: POST /callback, wrk -t2 -c$CONNECTIONS -d${SECONDS_LOAD}s on loopback, beside nginx answering success"
echo "  load before: $(uptime | sed 's/.*load average/load average/')"
read -r n_rps n_p50 n_p99 n_req n_bad <<<"$(load "http://127.0.0.1:$nport/callback")"
read -r s_rps s_p50 s_p99 s_req s_bad <<<"$(load "http://127.0.0.1:$sport/callback")"
if [ -n "${BEFORE:-}" ]; then
  read -r b_rps b_p50 b_p99 b_req b_bad <<<"$(load "http://127.0.0.1:$bport/callback")"
  kill -TERM "$bpid"; wait "$bpid" 2>/dev/null || true
fi
echo "  load after: $(uptime | sed 's/.*load average/load average/')"
kill -TERM "$spid"; wait "$spid" 2>/dev/null || true
committed=$(sqlite3 "$work/store.sqlite" "SELECT COUNT(*) FROM game_server_callback")
granted=$(sqlite3 "$work/store.sqlite" "SELECT COUNT(*) FROM game_server_grant")
printf "  %-8s %10s %10s %10s %10s\n" "" "req/s" "p50 ms" "p99 ms" "requests"
printf "  %-8s %10s %10s %10s %10s\n" nginx "$n_rps" "$n_p50" "$n_p99" "$n_req"
printf "  %-8s %10s %10s %10s %10s\n" serve "$s_rps" "$s_p50" "$s_p99" "$s_req"
[ -n "${BEFORE:-}" ] && printf "  %-8s %10s %10s %10s %10s\n" before "$b_rps" "$b_p50" "$b_p99" "$b_req"
python3 -c "print('  serve/nginx throughput %.2f; p99 %.2fx nginx' % ($s_rps/$n_rps, $s_p99/max($n_p99,0.001)))"
[ -n "${BEFORE:-}" ] && python3 -c "print('  before/nginx throughput %.2f; serve/before %.2f' % ($b_rps/$n_rps, $s_rps/$b_rps))"
echo "  committed: $committed callbacks answered success ($granted grants, the rest repeats) of $s_req requests; non-2xx $s_bad"
echo "  log lines: $(wc -l < "$work/serve.log")"
[ -n "${SKIP_SIMULATION:-}" ] && exit 0

echo "== simulate: purchases per second, callbacks POSTed to a PHP game server (php -S) vs in process"
pport=$(free_port)
keys=$(sqlite3 "$work/store.sqlite" "SELECT json_group_object(id, app_key) FROM app")
mkdir -p "$work/ledger"
STOREDESK_KEYS="$keys" STOREDESK_LEDGER="$work/ledger" php -n -d display_errors=0 -S "127.0.0.1:$pport" Tests/StoreDeskNetworkTests/GameServer/router.php >/dev/null 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$pport/healthz"
sim() { # extra args -> purchases/s
  cp "$work/xdg/storedesk/storedesk.sqlite" "$work/sim.sqlite"; rm -f "$work/sim.sqlite-wal" "$work/sim.sqlite-shm"
  python3 - "$BIN" "$work/sim.sqlite" "$@" <<'PY'
import json, subprocess, sys, time
bin, db, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
t = time.perf_counter()
out = subprocess.run([bin, "simulate", "--seconds", "10", "--rate", "1000", "--seed", "3", "--json", "--db", db] + extra,
                     capture_output=True, check=True, text=True).stdout
wall = time.perf_counter() - t
s = json.loads(out)["summary"]
print(f"{s['attempts'] / wall:.0f} {s['grants']} {wall:.2f}")
PY
}
read -r local_pps local_grants local_wall <<<"$(sim)"
read -r http_pps http_grants http_wall <<<"$(sim --callback-url "http://127.0.0.1:$pport/callback" --concurrency 16)"
php_grants=$(wc -l < "$work/ledger/ledger.jsonl")
printf "  in process   %8s purchases/s  (%s grants, %s s)\n" "$local_pps" "$local_grants" "$local_wall"
printf "  over HTTP    %8s purchases/s  (%s grants, %s s; the PHP ledger holds %s)\n" "$http_pps" "$http_grants" "$http_wall" "$php_grants"
python3 -c "print('  over HTTP / in process %.3f' % ($http_pps/$local_pps))"
