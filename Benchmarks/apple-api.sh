#!/usr/bin/env bash
# The App Store Server API in `serve`, beside baselines measured in the same run:
#   - Get Transaction Info and one 20-item page of Get Transaction History, requests per second (wrk, a
#     bearer JWT made by Apple's Python library), beside nginx serving a static file of the same size;
#   - a player with HISTORY (default 10,000) transactions paged through in full by Apple's own client
#     (AppStoreServerAPIClient, nothing changed but its base URL), every page's JWS verified by its
#     SignedDataVerifier: the whole walk, and its first and last pages, beside the same number of fetches of
#     one static page from nginx by the same Python.
# Apple's library from .build/apple-venv (`make apple-venv`). Servers listen on 127.0.0.1 and are stopped on
# exit. Figures, not pass/fail.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/.build/release/storedesk}
SECONDS_LOAD=${SECONDS_LOAD:-10}
CONNECTIONS=${CONNECTIONS:-64}
HISTORY=${HISTORY:-10000}
VENV=${STOREDESK_APPLE_VENV:-$PWD/.build/apple-venv}
work=$(mktemp -d)
chmod 755 "$work" # nginx's workers read its files as another user
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
. Benchmarks/common.sh
[ -x "$VENV/bin/python" ] || { echo "Apple's library is not in $VENV: run make apple-venv" >&2; exit 1; }

# The demo store, an API key for app 1001, and another player (10000002) with $HISTORY more purchases:
# Transaction Info asks for a transaction of a player with the demo's eleven (10000001).
XDG_DATA_HOME="$work/xdg" "$BIN" check >/dev/null
store="$work/store.sqlite"
cp "$work/xdg/storedesk/storedesk.sqlite" "$store"
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$work/key.p8"
issuer=57246542-96fe-1a63-e053-0824d011072a
"$BIN" apps set 1001 --api-key-file "$work/key.p8" --key-id BENCHKEY --issuer-id "$issuer" --db "$store" --role developer >/dev/null
"$BIN" signer root --pem --db "$store" >"$work/root.pem"
openssl x509 -in "$work/root.pem" -outform DER -out "$work/root.der"
bundle=$(sqlite3 "$store" "SELECT bundle_id FROM app WHERE id = '1001'")
apple_id=$(sqlite3 "$store" "SELECT COALESCE(apple_app_id, 0) FROM app WHERE id = '1001'")
sqlite3 "$store" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $HISTORY)
INSERT INTO store_transaction (id, original_transaction_id, user_id, app_id, product_id, quantity, state, failure_reason,
  environment, sid, role_id, app_order_id, ext, purchase_date, expires_date, revocation_date, revocation_reason, finished)
SELECT printf('2100000%09d', i), printf('2100000%09d', i), '10000002', '1001', 'com.storedesk.starvoyage.gems.300', 1,
  'purchased', NULL, 'Production', 's2', 'r10000002-1', 'G-bench-' || i, '', 1700000000000 + i * 60000, NULL, NULL, NULL, 1
FROM n;
SQL
one=2000000100000001
long=2100000000000001

start_serve "$BIN" "$store" "$work/serve.log"; sport=$started_port
token=$("$VENV/bin/python" Tests/AppleLibrary/apple_library.py token "$work/key.p8" BENCHKEY "$issuer" "$bundle")
info_url="http://127.0.0.1:$sport/inApps/v1/transactions/$one"
history_url="http://127.0.0.1:$sport/inApps/v2/history/$long?sort=ASCENDING"
curl -sf -H "Authorization: Bearer $token" "$info_url" >"$work/info.json" || { echo "Get Transaction Info failed" >&2; exit 1; }
curl -sf -H "Authorization: Bearer $token" "$history_url" >"$work/history.json" || { echo "Get Transaction History failed" >&2; exit 1; }

# nginx serving each answer as a static file: the same bytes over the same loopback.
mkdir -p "$work/nginx/www"
cp "$work/info.json" "$work/history.json" "$work/nginx/www/"
start_nginx "$work/nginx" "root $work/nginx/www;"

get() { # url [header] -> "rps p50 p99 requests non2xx"
  wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_LOAD}s" --latency ${2:+-H "$2"} -s /dev/stdin "$1" 2>/dev/null <<'LUA' | awk '/^RESULT/ {print $2, $3, $4, $5, $6}'
done = function(summary, latency, requests)
  io.write(string.format("RESULT %.0f %.3f %.3f %d %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.requests, summary.errors.status))
end
LUA
}

echo "== App Store Server API in serve (SQLite demo store), wrk -t2 -c$CONNECTIONS -d${SECONDS_LOAD}s on loopback; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "  %-34s %10s %10s %10s %10s %8s\n" "" "req/s" "p50 ms" "p99 ms" "requests" "non-2xx"
read -r a b c d e <<<"$(get "http://127.0.0.1:$nginx_port/info.json")"
printf "  %-34s %10s %10s %10s %10s %8s\n" "nginx, info.json ($(wc -c <"$work/info.json") B)" "$a" "$b" "$c" "$d" "$e"; n_info=$a
read -r a b c d e <<<"$(get "$info_url" "Authorization: Bearer $token")"
printf "  %-34s %10s %10s %10s %10s %8s\n" "Get Transaction Info" "$a" "$b" "$c" "$d" "$e"; s_info=$a
read -r a b c d e <<<"$(get "http://127.0.0.1:$nginx_port/history.json")"
printf "  %-34s %10s %10s %10s %10s %8s\n" "nginx, history.json ($(wc -c <"$work/history.json") B)" "$a" "$b" "$c" "$d" "$e"; n_hist=$a
token=$("$VENV/bin/python" Tests/AppleLibrary/apple_library.py token "$work/key.p8" BENCHKEY "$issuer" "$bundle")
read -r a b c d e <<<"$(get "$history_url" "Authorization: Bearer $token")"
printf "  %-34s %10s %10s %10s %10s %8s\n" "History page (20 of $((HISTORY + 11)))" "$a" "$b" "$c" "$d" "$e"; s_hist=$a
python3 -c "print(f'  Transaction Info/nginx {$s_info/$n_info:.3f}; history page/nginx {$s_hist/$n_hist:.3f}')"

echo "== the history of a player with $HISTORY+ transactions, paged through in full by Apple's client, each page verified"
"$VENV/bin/python" - "$sport" "$nginx_port" "$work/key.p8" BENCHKEY "$issuer" "$bundle" "$work/root.der" "$apple_id" "$long" <<'PY'
import sys, time, urllib.request
from appstoreserverlibrary.api_client import AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.TransactionHistoryRequest import TransactionHistoryRequest, Order
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier
port, nport, key_path, key_id, issuer, bundle, root, apple_id, tid = sys.argv[1:]
client = AppStoreServerAPIClient(open(key_path, "rb").read(), key_id, issuer, bundle, Environment.PRODUCTION)
client._base_url = f"http://127.0.0.1:{port}"
verifier = SignedDataVerifier([open(root, "rb").read()], False, Environment.PRODUCTION, bundle, int(apple_id) if apple_id != "0" else None)
revision, pages, items, times = None, 0, 0, []
started = time.perf_counter()
while True:
    t = time.perf_counter()
    page = client.get_transaction_history(tid, revision, TransactionHistoryRequest(sort=Order.ASCENDING), GetTransactionHistoryVersion.V2)
    for jws in page.signedTransactions or []:
        verifier.verify_and_decode_signed_transaction(jws)
    times.append(time.perf_counter() - t)
    pages += 1; items += len(page.signedTransactions or [])
    revision = page.revision
    if not page.hasMore: break
walk = time.perf_counter() - started
url = f"http://127.0.0.1:{nport}/history.json"
t = time.perf_counter()
for _ in range(pages): urllib.request.urlopen(url).read()
static = time.perf_counter() - t
print(f"  {items} transactions in {pages} pages: {walk:.2f} s ({walk / pages * 1000:.1f} ms a page, verification included);"
      f" first page {times[0] * 1000:.1f} ms, last {times[-1] * 1000:.1f} ms")
print(f"  {pages} fetches of the static page from nginx: {static:.2f} s; ratio {walk / static:.1f}x")
PY
