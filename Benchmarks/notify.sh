#!/usr/bin/env bash
# Notifications sent: `storedesk serve`'s sender POSTing App Store Server Notifications V2 (each signed by
# the store's chain, claimed and recorded in the store) to nginx answering 200 on loopback, beside wrk
# POSTing one of those very bodies to the same nginx in the same run (this machine's HTTP ceiling for it).
# Figures, not pass/fail. Servers listen on 127.0.0.1 only and are stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/.build/release/storedesk}
COUNT=${COUNT:-20000}
SECONDS_LOAD=${SECONDS_LOAD:-10}
CONNECTIONS=${CONNECTIONS:-64}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

. Benchmarks/common.sh

XDG_DATA_HOME="$work/xdg" "$BIN" check >/dev/null
store="$work/store.sqlite"
cp "$work/xdg/storedesk/storedesk.sqlite" "$store"

# nginx: 200 for POST /notify.
start_nginx "$work/nginx" "client_max_body_size 1m; location /notify { return 200; }"; nport=$nginx_port

# `count` more notifications of app 1001 in the log (copies of its own, new ids and UUIDs).
log_more() { # count
  sqlite3 "$store" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1),
    src AS (SELECT e.* FROM subscription_event e JOIN subscription s USING (original_transaction_id) WHERE s.app_id = '1001')
    INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, subtype, signed_date,
      transaction_id, product_id, provenance, root_sha256, root_subject, signer_subject, signer_serial, payload, source, imported_at, source_line)
    SELECT lower(hex(randomblob(16))), original_transaction_id, notification_type, subtype, signed_date, transaction_id, product_id,
      provenance, root_sha256, root_subject, signer_subject, signer_serial, payload, 'bench', imported_at, NULL
    FROM n JOIN (SELECT * FROM src LIMIT 1) ON 1"
}
delivered() { sqlite3 "$store" "SELECT count(*) FROM notification_delivery WHERE state = 'delivered'"; }
start_serve() {
  sport=$(free_port)
  "$BIN" serve --listen "127.0.0.1:$sport" --db "$store" --log "$work/serve.log" >/dev/null &
  spid=$!
  pids+=($spid)
  wait_for "http://127.0.0.1:$sport/healthz"
}

# One notification sent to a small Python server that keeps its body: the body wrk sends.
cport=$(free_port)
body="$work/body.json"
python3 - "$cport" "$body" <<'PY' &
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class Keep(BaseHTTPRequestHandler):
    def do_POST(self):
        data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with open(sys.argv[2] + ".tmp", "wb") as f: f.write(data)
        import os; os.rename(sys.argv[2] + ".tmp", sys.argv[2])
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), Keep).serve_forever()
PY
pids+=($!)
wait_for "http://127.0.0.1:$cport/"
"$BIN" apps set 1001 --notification-url "http://127.0.0.1:$cport/capture" --role developer --db "$store" >/dev/null
log_more 1
start_serve
for _ in $(seq 1 400); do [ -s "$body" ] && [ "$(delivered)" -ge 1 ] && break; sleep 0.05; done
kill "$spid"; wait "$spid" 2>/dev/null || true
[ -s "$body" ] || { echo "no notification reached the capture server: $(tail -3 "$work/serve.log")" >&2; exit 1; }
bytes=$(wc -c < "$body")

# The sender: COUNT notifications logged, timed from serve's start to the last one delivered.
"$BIN" apps set 1001 --notification-url "http://127.0.0.1:$nport/notify" --role developer --db "$store" >/dev/null
log_more "$COUNT"
start=$(date +%s.%N)
start_serve
while [ "$(delivered)" -lt $((COUNT + 1)) ]; do sleep 0.05; done
end=$(date +%s.%N)
kill "$spid"; wait "$spid" 2>/dev/null || true
attempts=$(sqlite3 "$store" "SELECT count(*) FROM notification_attempt")

# The baseline: wrk POSTing that body to the same nginx.
cat > "$work/post.lua" <<LUA
local f = io.open("$body", "rb"); local body = f:read("*a"); f:close()
request = function() return wrk.format("POST", "/notify", {["Content-Type"] = "application/json"}, body) end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %.0f\n", summary.requests / (summary.duration / 1e6)))
end
LUA
wrk_rps=$(wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_LOAD}s" -s "$work/post.lua" "http://127.0.0.1:$nport/notify" 2>/dev/null | awk '/^RESULT/ {print $2}')

echo "== notifications sent: serve's sender to nginx (200) on loopback, beside wrk POSTing the same $bytes-byte body"
python3 - "$COUNT" "$start" "$end" "$wrk_rps" "$attempts" <<'PY'
import sys
count, start, end, wrk, attempts = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
rate = count / (end - start)
print(f"  sender  {rate:10.0f} notifications/s  ({count} signed, claimed, POSTed and recorded in {end - start:.2f} s incl. serve's start; {attempts} attempts)")
print(f"  wrk     {wrk:10.0f} POSTs/s of the same body (-c64)")
print(f"  sender/wrk {rate / wrk:.3f}")
PY
