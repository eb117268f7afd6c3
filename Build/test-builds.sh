#!/usr/bin/env bash
# `make test`'s two builds, side by side: the release binary `make run` uses (the end-to-end tests run it)
# and the test build (every test target, debug, no debug info, in a build folder of its own so the two
# SwiftPM runs do not wait on each other's lock). Each alone keeps about 1.8 of two cores busy (a release
# module is optimized whole, on one thread, and the last modules wait on each other); side by side they
# fill the rest (on 2026-12-03: 1,571 s for both, 1,750 s one after the other). Each build's output goes
# to its log, printed when it fails; its time is printed when it ends. Exits non-zero when either fails.
#
# usage: Build/test-builds.sh SWIFT TEST_FOLDER -- RELEASE_FLAGS...
set -uo pipefail
swift=$1 tests=$2
shift 3
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

build() { # name, then the build's arguments
    local name=$1 start=$SECONDS status
    shift
    "$swift" build "$@" >"$logs/$name.log" 2>&1
    status=$?
    if [ $status -ne 0 ]; then
        echo "the $name build failed ($status):" >&2
        tail -n 60 "$logs/$name.log" >&2
    else
        echo "the $name build took $((SECONDS - start)) s"
    fi
    return $status
}

build release -c release --product storedesk "$@" &
release=$!
# -gnone and -g0: no DWARF for Swift nor C; a failing test still names its file and line.
build test --build-tests --scratch-path "$tests" -Xswiftc -gnone -Xcc -g0 &
test=$!
failed=0
wait $release || failed=1
wait $test || failed=1
exit $failed
