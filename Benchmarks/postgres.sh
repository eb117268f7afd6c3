#!/usr/bin/env bash
# The team store's figures, each beside a baseline measured in the same run on the same server:
#   - seed of USERS players (default 1,000,000) beside psql's \copy of the same rows into the same schema;
#   - the Users screen's first frame (`snapshot`, the whole process) beside psql fetching the same 40 rows;
#   - `check` beside psql running the same statements (taken from the server's statement log);
#   - serve's POST /callback per second on PostgreSQL with one and with two serve processes, beside serve on
#     SQLite and nginx answering a static `success` (wrk on loopback).
# A throwaway cluster: initdb in a temporary folder, 127.0.0.1 at a free port, stopped on exit.
# Figures, not pass/fail.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/.build/release/storedesk}
USERS=${USERS:-1000000}
RUNS=${RUNS:-30}
SECONDS_LOAD=${SECONDS_LOAD:-10}
CONNECTIONS=${CONNECTIONS:-64}
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
work=$(mktemp -d)
chmod 755 "$work"
pids=()
as_server() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  as_server "$PGBIN/pg_ctl" -D "$work/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
. Benchmarks/common.sh

mkdir -p "$work/pg"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$work/pg"
port=$(free_port)
as_server "$PGBIN/initdb" -D "$work/pg/data" -U storedesk --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
as_server "$PGBIN/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $work/pg -c max_connections=200" start >/dev/null
psql_to() { psql -X -q -h 127.0.0.1 -p "$port" -U storedesk -d "$1" "${@:2}"; }
url() { echo "postgres://storedesk@127.0.0.1:$port/$1"; }
psql_to postgres -c "CREATE DATABASE bench" -c "CREATE DATABASE copied" -c "CREATE DATABASE demo" -c "CREATE DATABASE sqlitecopy"
echo "== PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"

seconds() { python3 -c 'import time; print(time.perf_counter())'; }

echo "== seed $USERS players into PostgreSQL, beside psql's \\copy of the same rows into the same schema"
t0=$(seconds)
"$BIN" seed --users "$USERS" --seed 1 --db "$(url bench)" >"$work/seed.out"
t1=$(seconds)
# Parents before children, as `store copy` moves them (StoreTables.copyOrder), then any other table.
order="app user game_account product payment_run store_transaction payment_order server_callback item_grant subscription
  restore_request login_entry_configuration audit_log transaction_event login_entry_history onetap_simulator onetap_token
  trust_root subscription_event catalogue catalogue_group catalogue_product catalogue_localization catalogue_offer
  catalogue_billing_plan game_server_callback game_server_grant signer app_api_key apple_app_account_token
  apple_renewal_extension store_meta"
others=$(psql_to bench -At -c "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename" | grep -vxF -f <(tr -s ' \n' '\n' <<<"$order") || true)
tables="$order $others"
mkdir -p "$work/rows"
: >"$work/copy.sql"
for t in $tables; do
  n=$(psql_to bench -At -c "SELECT COUNT(*) FROM \"$t\"")
  [ "${n:-0}" = 0 ] && continue
  psql_to bench -c "\\copy \"$t\" TO '$work/rows/$t.tsv'"
  echo "\\copy \"$t\" FROM '$work/rows/$t.tsv'" >>"$work/copy.sql"
done
# The same schema, triggers and indexes, empty: the copy pays for what seed pays for.
pg_dump -h 127.0.0.1 -p "$port" -U storedesk --schema-only bench | psql_to copied >/dev/null
# Tables the schema fills itself (a one-row counter, the migrations' own list) are emptied first.
psql_to copied -c "DO \$\$ DECLARE r record; BEGIN FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' LOOP EXECUTE 'TRUNCATE ' || quote_ident(r.tablename) || ' CASCADE'; END LOOP; END \$\$"
t2=$(seconds)
psql_to copied --single-transaction -f "$work/copy.sql"
t3=$(seconds)
python3 -c "s=$t1-$t0; c=$t3-$t2; print(f'  storedesk seed {s:7.2f} s   psql \\\\copy of the same rows {c:7.2f} s   ratio {s/c:.2f}x')"
sed 's/^/  /' "$work/seed.out"

echo "== the Users screen's first frame (snapshot --screen users --size 120x40, whole process, median of $RUNS) beside psql fetching the same 40 rows"
read -r ours base < <(medians_ms "$BIN|snapshot|--db|$(url bench)|--screen|users|--size|120x40" \
  "psql|-X|-q|-h|127.0.0.1|-p|$port|-U|storedesk|-d|bench|-c|SELECT * FROM \"user\" ORDER BY seq LIMIT 40")
python3 -c "print(f'  storedesk {$ours:7.2f} ms   psql, same 40 rows {$base:7.2f} ms   ratio {$ours/$base:.2f}x')"

echo "== check beside psql running the same statements (read from the server's log of one check)"
psql_to postgres -c "ALTER DATABASE bench SET log_statement = 'all'" >/dev/null
mark=$(wc -c <"$work/pg/log")
"$BIN" check --db "$(url bench)" >"$work/check.out" 2>&1 || { echo "  check did not pass:"; sed 's/^/    /' "$work/check.out" | head -5; }
psql_to postgres -c "ALTER DATABASE bench RESET log_statement" >/dev/null
tail -c +"$((mark + 1))" "$work/pg/log" | python3 -c '
import re, sys
entry = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \S+ \[\d+\] (\w+):  (.*)$")
statements, current, params = [], None, {}
def flush():
    global current
    if current is not None:
        statements.append(current)
    current = None
for line in sys.stdin.read().split("\n"):
    m = entry.match(line)
    if m:
        flush()
        level, text = m.groups()
        s = re.match(r"(?:statement|execute [^:]*): (.*)$", text, re.S)
        if level == "LOG" and s: current = s.group(1)
        elif level == "DETAIL" and text.startswith("parameters:") and statements:
            values = dict(re.findall(r"(\$\d+) = (NULL|\x27(?:[^\x27]|\x27\x27)*\x27)", text))
            statements[-1] = re.sub(r"\$\d+", lambda v: values.get(v.group(0), v.group(0)), statements[-1])
    elif current is not None:
        current += "\n" + line
flush()
print(";\n".join(statements) + ";")
' >"$work/check.sql"
echo "  check ran $(grep -c ';$' "$work/check.sql" || true) statements"
read -r ours base < <(RUNS=$(( RUNS < 5 ? RUNS : 5 )) medians_ms "$BIN|check|--db|$(url bench)" \
  "psql|-X|-q|-h|127.0.0.1|-p|$port|-U|storedesk|-d|bench|-f|$work/check.sql")
python3 -c "print(f'  storedesk check {$ours:8.1f} ms   psql, the same statements {$base:8.1f} ms   ratio {$ours/$base:.2f}x')"

echo "== serve: POST /callback per second, wrk -t2 -c$CONNECTIONS -d${SECONDS_LOAD}s on loopback"
XDG_DATA_HOME="$work/xdg" "$BIN" check >/dev/null
cp "$work/xdg/storedesk/storedesk.sqlite" "$work/store.sqlite"
"$BIN" store copy --from "$work/store.sqlite" --to "$(url demo)" >/dev/null
app=$(sqlite3 "$work/store.sqlite" "SELECT id FROM app ORDER BY id LIMIT 1")
key=$(sqlite3 "$work/store.sqlite" "SELECT app_key FROM app WHERE id = '$app'")
product=$(sqlite3 "$work/store.sqlite" "SELECT id FROM product WHERE app_id = '$app' AND type = 'consumable' ORDER BY id LIMIT 1")
make_bodies "${BODIES:-200000}" "$app" "$key" "$product" >"$work/bodies.txt"
write_post_lua "$work/post.lua"
load() { wrk_post "$work/post.lua" "$work/bodies.txt" "$@"; } # url connections offset -> "rps p50 p99 requests non2xx"
start_nginx "$work/nginx"; nport=$nginx_port
read -r n_rps n_p50 n_p99 n_req n_bad <<<"$(load "http://127.0.0.1:$nport/callback" "$CONNECTIONS" 0)"
start_serve "$BIN" "$work/store.sqlite" "$work/sqlite.log"; p=$started_pid
read -r q_rps q_p50 q_p99 q_req q_bad <<<"$(load "http://127.0.0.1:$started_port/callback" "$CONNECTIONS" 0)"
kill -TERM "$p"; wait "$p" 2>/dev/null || true
start_serve "$BIN" "$(url demo)" "$work/pg1.log"; p=$started_pid
read -r o_rps o_p50 o_p99 o_req o_bad <<<"$(load "http://127.0.0.1:$started_port/callback" "$CONNECTIONS" 0)"
kill -TERM "$p"; wait "$p" 2>/dev/null || true
# Two serve processes on one store, each its own half of the load at once; the same bodies reach both, so
# every order is granted once between them.
start_serve "$BIN" "$(url demo)" "$work/pg2a.log"; a=$started_pid; aport=$started_port
start_serve "$BIN" "$(url demo)" "$work/pg2b.log"; b=$started_pid; bport=$started_port
load "http://127.0.0.1:$aport/callback" $((CONNECTIONS / 2)) 0 >"$work/a.result" &
la=$!
load "http://127.0.0.1:$bport/callback" $((CONNECTIONS / 2)) 1 >"$work/b.result" &
lb=$!
wait "$la" "$lb"
kill -TERM "$a" "$b"; wait "$a" "$b" 2>/dev/null || true
read -r a_rps a_p50 a_p99 a_req a_bad <"$work/a.result"
read -r b_rps b_p50 b_p99 b_req b_bad <"$work/b.result"
printf "  %-22s %10s %10s %10s %10s %8s\n" "" "req/s" "p50 ms" "p99 ms" "requests" "non-2xx"
printf "  %-22s %10s %10s %10s %10s %8s\n" nginx "$n_rps" "$n_p50" "$n_p99" "$n_req" "$n_bad"
printf "  %-22s %10s %10s %10s %10s %8s\n" "serve, SQLite" "$q_rps" "$q_p50" "$q_p99" "$q_req" "$q_bad"
printf "  %-22s %10s %10s %10s %10s %8s\n" "serve, PostgreSQL" "$o_rps" "$o_p50" "$o_p99" "$o_req" "$o_bad"
printf "  %-22s %10s %10s %10s %10s %8s\n" "2 serves, PostgreSQL" "$((a_rps + b_rps))" "$a_p50/$b_p50" "$a_p99/$b_p99" "$((a_req + b_req))" "$((a_bad + b_bad))"
python3 -c "print(f'  PostgreSQL/SQLite {$o_rps/$q_rps:.2f}; two serves/one {($a_rps+$b_rps)/$o_rps:.2f}; PostgreSQL/nginx {$o_rps/$n_rps:.3f}')"
twice=$(psql_to demo -At -c "SELECT COUNT(*) FROM (SELECT order_id FROM game_server_grant GROUP BY order_id HAVING COUNT(*) > 1) d")
echo "  orders granted twice: $twice"
