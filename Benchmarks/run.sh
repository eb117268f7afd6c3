#!/usr/bin/env bash
# StoreDesk benchmarks: figures, not pass/fail. Each timing is printed beside a baseline measured in
# the same run, as a ratio. Stores are cached in $BENCH_DIR (default .bench/) between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release/storedesk}
DIR=${BENCH_DIR:-.bench}
RUNS=${RUNS:-30}
mkdir -p "$DIR"

seed() { # users file
  if [ ! -f "$2" ]; then
    /usr/bin/time -f "  peak memory %M KB" "$BIN" seed --users "$1" --seed 1 --db "$2"
  fi
}

# Cached stores from an older schema are rebuilt (the benchmarks open them read-only, without --migrate).
fresh=$(mktemp -d)
XDG_DATA_HOME="$fresh" "$BIN" check >/dev/null
schema=$(sqlite3 "$fresh/storedesk/storedesk.sqlite" "SELECT group_concat(identifier) FROM grdb_migrations")
rm -rf "$fresh"
for cached in "$DIR"/*.sqlite; do
  [ -f "$cached" ] || continue
  if [ "$(sqlite3 "$cached" "SELECT group_concat(identifier) FROM grdb_migrations")" != "$schema" ]; then
    echo "  $cached has an older schema: rebuilding it"
    rm -f "$cached" "$cached-wal" "$cached-shm"
  fi
done

echo "== seed"
seed 10000 "$DIR/10k.sqlite"
seed 1000000 "$DIR/1m.sqlite"
sqlite3 "$DIR/1m.sqlite" 'PRAGMA integrity_check' | sed 's/^/  integrity_check: /'

. Benchmarks/common.sh

echo "== snapshot --screen users --size 120x40 (whole process, median of $RUNS, alternating with the baseline)"
for store in 10k 1m; do
  read -r ours base < <(medians_ms "$BIN|snapshot|--db|$DIR/$store.sqlite|--screen|users|--size|120x40" \
    "sqlite3|$DIR/$store.sqlite|SELECT * FROM user ORDER BY rowid LIMIT 40")
  printf "  %-3s storedesk %7s ms   sqlite3 CLI, same 40 rows %6s ms   ratio %.2fx\n" "$store" "$ours" "$base" "$(awk "BEGIN{print $ours/$base}")"
done

echo "== filter keystrokes (in process, key to finished frame)"
for store in 10k 1m; do
  printf "  %-3s " "$store"; "$BIN" bench filter --db "$DIR/$store.sqlite"
done

echo "== find by an exact id, 1m store (whole process, median of $RUNS, beside the sqlite3 CLI fetching the same row by its index)"
# Ids from the middle of each index, so neither side is helped by a page the other left in the cache.
one() { sqlite3 "$DIR/1m.sqlite" "$1"; }
user=$(one "SELECT id FROM user WHERE rowid = 500000")
tx=$(one "SELECT id FROM store_transaction WHERE user_id = '$user' LIMIT 1")
order=$(one "SELECT order_id FROM payment_order WHERE transaction_id = '$tx'")
apporder=$(one "SELECT app_order_id FROM store_transaction WHERE id = '$tx'")
for spec in "player|$user|SELECT * FROM user WHERE id = '$user'" \
            "transaction|$tx|SELECT * FROM store_transaction WHERE id = '$tx'" \
            "order|$order|SELECT * FROM payment_order WHERE order_id = '$order'" \
            "app order|$apporder|SELECT * FROM store_transaction WHERE app_order_id = '$apporder'"; do
  IFS='|' read -r what id query <<<"$spec"
  [ -n "$id" ] || { echo "  $what: none in this store"; continue; }
  read -r ours base < <(medians_ms "$BIN|find|$id|--db|$DIR/1m.sqlite" "sqlite3|$DIR/1m.sqlite|$query")
  printf "  %-11s %-22s storedesk find %6s ms   sqlite3 CLI %6s ms   ratio %.2fx\n" "$what" "$id" "$ours" "$base" "$(awk "BEGIN{print $ours/$base}")"
done
printf "  "; "$BIN" bench find --db "$DIR/1m.sqlite" "$user" "$tx" ${order:+"$order"} ${apporder:+"$apporder"}

echo "== peak memory (max RSS)"
# The binary's code and data are file pages, and how many of them a process maps depends on how they came
# into the page cache: a binary the linker has just written maps about 2 MB more than the same file read
# back from disk, as after an install or a reboot (measured with kernel 6.18: 16.8 against 14.1 MB for `keys`).
# Drop this file's cached pages first, so the figure does not depend on whether it was just linked.
python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$BIN"
for store in 10k 1m; do
  snap=$(/usr/bin/time -f "%M" "$BIN" snapshot --db "$DIR/$store.sqlite" --size 120x40 2>&1 >/dev/null | tail -1)
  filt=$(/usr/bin/time -f "%M" "$BIN" bench filter --db "$DIR/$store.sqlite" 2>&1 >/dev/null | tail -1)
  printf "  %-3s snapshot %6.1f MB   filter session %6.1f MB\n" "$store" "$(awk "BEGIN{print $snap/1024}")" "$(awk "BEGIN{print $filt/1024}")"
done

echo "== user export (200,000 players, streamed a page at a time: rows, seconds, peak memory)"
seed 200000 "$DIR/200k.sqlite"
for format in csv json; do
  out=$(mktemp -d)
  mem=$(/usr/bin/time -f "%M" "$BIN" user export "$out/players.$format" --format "$format" --db "$DIR/200k.sqlite" --json 2>"$out/time" >"$out/report"; tail -1 "$out/time")
  rows=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["rows"], r["seconds"])' "$out/report")
  lines=$(wc -l <"$out/players.$format")
  printf "  %-4s rows %s s %s   %s lines   peak memory %6.1f MB\n" "$format" ${rows% *} ${rows#* } "$lines" "$(awk "BEGIN{print $mem/1024}")"
  rm -rf "$out"
done

echo "== payment queue (headless pipeline beside raw SQLite inserts of the same rows, same run)"
for run in 1 2 3; do "$BIN" bench queue --transactions 20000 | sed 's/^/  /'; done

echo "== events import (100,000 notifications, decoded and verified, beside SQLite's json_extract insert and the signatures alone, same run)"
"$BIN" bench import | sed 's/^/  /'
