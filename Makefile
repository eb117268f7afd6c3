# StoreDesk: `make run` opens the console on the embedded default store; `make test` runs every test.
# Both install the Debian packages they need when missing.

SWIFT ?= swift
PACKAGES := libncurses-dev libsqlite3-dev tmux php-cli curl
# `make test` also needs Debian's PostgreSQL server (the tests start throwaway clusters of their own;
# `make run` needs no server), openssl (the signing chain passes its strict checks) and python3-venv
# (Apple's App Store Server Library for Python, the reference verifier and client, runs in a venv).
TEST_PACKAGES := postgresql openssl python3-venv
# Apple's library from PyPI, at the version Tests/AppleLibrary/requirements.txt pins, made once and kept
# while it imports (the trust tests make it themselves when it is missing).
APPLE_VENV := .build/apple-venv
# `make bench` also needs wrk and nginx (load tool, and this machine's HTTP ceiling beside `serve`), and
# PostgreSQL for the team store's figures (a throwaway cluster of its own).
BENCH_PACKAGES := wrk nginx sqlite3 postgresql
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test build release deps bench clean apple-venv

deps:
	@missing=""; for p in $(PACKAGES) $(EXTRA_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# The release binary starts fast, for the scripts that call it many times:
# - the Swift runtime linked statically (about half the start-up time);
# - not position-independent: a PIE of this size spends ~2 ms at every start on 97k relocations;
# - no exported symbols (SwiftPM exports 19k for backtraces; the runtime's start-up `dladdr` and the
#   loader walked them all), the backtracer reads the symbol table instead;
# - generic types' metadata made by direct calls, not from mangled names: each first use of a mangled
#   name checked its generic requirements by scanning the binary's 7,600 protocol conformances;
# - the functions that start-up, the screens and the Users filter run laid out side by side
#   (Build/hot-functions.txt, see Build/hot-functions.sh): the kernel maps code 64 KB around each first
#   touch, and scattered they pulled in megabytes more of the binary than they take. Only functions in
#   sections of their own can be placed, hence `-function-sections` (Swift) and `-ffunction-sections` (C).
#   A warm .build from before these flags keeps objects whose code did not change (the compiler skips
#   code generation when the IR is the same): delete .build/release/*.build/*.o once after pulling them.
RELEASE_FLAGS := -Xswiftc -static-stdlib -Xswiftc -Xclang-linker -Xswiftc -no-pie -Xlinker --no-export-dynamic \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
	-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
	-Xlinker --section-ordering-file=$(CURDIR)/Build/hot-functions.txt

release: deps
	$(SWIFT) build -c release --product storedesk $(RELEASE_FLAGS)

run: release
	./.build/release/storedesk $(ARGS)

build: deps
	$(SWIFT) build

apple-venv:
	@$(APPLE_VENV)/bin/python -c 'import appstoreserverlibrary' 2>/dev/null || { \
		echo "installing Apple's App Store Server Library into $(APPLE_VENV)"; \
		python3 -m venv $(APPLE_VENV) && $(APPLE_VENV)/bin/pip install -q -r Tests/AppleLibrary/requirements.txt; }

# The test build's own folder (the release binary stays in .build, where `make run` finds it).
TEST_BUILD := .build-tests

# The release binary `make run` uses and the test build (debug, no debug info), compiled side by side
# (Build/test-builds.sh); then the end-to-end tests on that release binary (its linker and metadata flags are
# not the debug build's), then every other test, which runs it too where it needs the binary: each test once.
test: deps
	@$(MAKE) --no-print-directory deps EXTRA_PACKAGES="$(TEST_PACKAGES)"
	@$(MAKE) --no-print-directory apple-venv
	bash Build/test-builds.sh "$(SWIFT)" $(TEST_BUILD) -- $(RELEASE_FLAGS)
	STOREDESK_BIN=$(CURDIR)/.build/release/storedesk $(SWIFT) test --scratch-path $(TEST_BUILD) --skip-build --no-parallel --filter EndToEndTests
	STOREDESK_BIN=$(CURDIR)/.build/release/storedesk $(SWIFT) test --scratch-path $(TEST_BUILD) --skip-build --no-parallel --skip EndToEndTests

bench: release
	@$(MAKE) --no-print-directory deps EXTRA_PACKAGES="$(BENCH_PACKAGES) $(TEST_PACKAGES)"
	@$(MAKE) --no-print-directory apple-venv
	bash Benchmarks/run.sh
	bash Benchmarks/serve.sh
	bash Benchmarks/notify.sh
	bash Benchmarks/postgres.sh
	bash Benchmarks/apple-api.sh

clean:
	rm -rf .build $(TEST_BUILD)
