# StoreDesk: `make run` opens the console on the embedded default store; `make test` runs every test.
# Both install the Debian packages they need when missing.

SWIFT ?= swift
PACKAGES := libncurses-dev libsqlite3-dev tmux
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test build release deps bench clean

deps:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# The release binary links the Swift runtime statically (it starts in about half the time) and is
# not position-independent: a PIE of this size spends ~2 ms at every start applying 97k relocations.
RELEASE_FLAGS := -Xswiftc -static-stdlib -Xswiftc -Xclang-linker -Xswiftc -no-pie

release: deps
	$(SWIFT) build -c release --product storedesk $(RELEASE_FLAGS)

run: release
	./.build/release/storedesk $(ARGS)

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --product storedesk
	$(SWIFT) test --no-parallel

bench: release
	bash Benchmarks/run.sh

clean:
	rm -rf .build
