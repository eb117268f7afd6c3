#!/usr/bin/env bash
# Rewrites Build/hot-functions.txt: the functions the release binary runs to start, draw every screen,
# filter the Users screen and find an id, in the order they first run. `make release` hands the list to the linker
# (gold's --section-ordering-file), which puts these functions side by side at the start of .text.
#
# Why: the kernel maps a binary's code 64 KB around each page a process first touches. Scattered over
# 34 MB of .text, a few thousand small functions pulled in megabytes of code nobody ran, and a bigger
# binary (NIO, certificates) scattered them further. Together they take a few hundred KB.
#
# Only functions compiled into sections of their own can move, and only those are listed: the
# package's own and its dependencies' (the release build compiles Swift with `-function-sections` and C
# with `-ffunction-sections`, see the Makefile) and the C/C++ parts of the static Swift runtime,
# Foundation and Dispatch. The standard library's and Foundation's own Swift code come prebuilt in one
# section and stay where they are. A name the link no longer has is ignored, so a stale list costs
# nothing but the gain. Rerun after a large change to what start-up or the screens call.
# Needs valgrind (callgrind) and a release build: `make release && bash Build/hot-functions.sh`, then
# relink (SwiftPM does not see this file change): `rm .build/release/storedesk && make release`.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release/storedesk}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Valgrind cannot read this toolchain's DWARF 5: profile a copy without debug info (symbols stay).
strip --strip-debug -o "$work/storedesk" "$BIN"
export XDG_DATA_HOME="$work/data"
"$work/storedesk" check >/dev/null   # builds the default (demo) store once, outside the profile
profile() { valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.$1" "$work/storedesk" "${@:2}" >/dev/null 2>&1; }
n=0
profile $((n++)) keys
for screen in users queue subscriptions restores audit login codes onetap find; do
  profile $((n++)) snapshot --screen "$screen" --size 120x40
done
profile $((n++)) bench filter
# A ticket's id looked up (find's own fast path), and a name.
profile $((n++)) find 2000000100000093
profile $((n++)) find 阿伟 --json
# The link's inputs that put functions in sections of their own: the static Swift runtime and
# libraries, and this build's objects.
swift_static=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib/swift_static/linux
{ for archive in "$swift_static"/*.a; do readelf -SW "$archive" 2>/dev/null; done
  find .build/release/ -name '*.o' -print0 | xargs -0 readelf -SW 2>/dev/null; } | grep -o ' \.text\.[^ ]*' | sort -u > "$work/sections"
python3 - "$work/sections" "$work"/cg.* > Build/hot-functions.txt <<'PY'
import re, subprocess, sys
seen, order = set(), []
for path in sorted(sys.argv[2:], key=lambda p: int(p.rsplit(".", 1)[1])):
    names = {}
    for line in open(path):
        m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m: continue
        if m.group(2) is not None: names[m.group(1)] = m.group(2)
        name = names.get(m.group(1))
        if name and name not in seen:
            seen.add(name); order.append(name)
sections = set(line.strip() for line in open(sys.argv[1]))
for name in order:
    if ".text." + name in sections: print(".text." + name)
PY
echo "Build/hot-functions.txt: $(wc -l < Build/hot-functions.txt) functions"
