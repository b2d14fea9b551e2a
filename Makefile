# The two commands a new user needs: `make run` and `make test`. Both install missing Debian
# packages first (scripts/install-deps.sh), so they work on a fresh Debian 12 with Swift 6.3.

SWIFT ?= swift
PREFIX ?= /usr/local
CONFIGURATION ?= release

.PHONY: deps run demo test build install docs bench fuzz fuzz-smoke lint clean

deps:
	@scripts/install-deps.sh

# Release executables link the Swift runtime statically: the command-line tools start faster.
build: deps
	$(SWIFT) build -c $(CONFIGURATION) --static-swift-stdlib

# The main job: prefsd in the foreground on the default socket and Preferences directory (Control-C stops it).
run: build
	@scripts/run-prefsd.sh "$$($(SWIFT) build -c $(CONFIGURATION) --static-swift-stdlib --show-bin-path)"

# plutil on a sample property list, step by step.
demo: build
	@scripts/demo.sh "$$($(SWIFT) build -c $(CONFIGURATION) --static-swift-stdlib --show-bin-path)"

# The executables, the systemd user units and the shipped Domains/ under PREFIX (default /usr/local).
install: deps
	@scripts/install.sh "$(PREFIX)"

# The racing-process proofs (AtomicUpdateTests: up to 200 processes at once) run after the rest, alone, so that they
# do not slow the timing-sensitive tests that would otherwise run beside them.
# Then the Python client package is installed into a fresh virtual environment and tested against the built prefsd.
# Then the documentation is built (a broken symbol link or any DocC warning fails), and every fuzz harness runs
# briefly, so that one that no longer builds or fails at once is caught.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip AtomicUpdateTests
	$(SWIFT) test --skip-build --filter AtomicUpdateTests
	@clients/python/run-tests.sh "$$($(SWIFT) build --show-bin-path)"
	@$(MAKE) --no-print-directory docs
	@$(MAKE) --no-print-directory fuzz-smoke

# The DocC documentation of the libraries (Preferences, PrefsPlist, PrefsStore), as one static site in .build/docs
# (swift-docc-plugin; every link must resolve and any warning fails). Serve it from there, for example with
# `python3 -m http.server -d .build/docs`, and open /documentation/ (a page per module).
DOCS_DIR ?= .build/docs

docs: deps
	$(SWIFT) package --allow-writing-to-directory $(DOCS_DIR) generate-documentation \
		--target Preferences --target PrefsPlist --target PrefsStore \
		--enable-experimental-combined-documentation --warnings-as-errors \
		--transform-for-static-hosting --output-path $(DOCS_DIR)

# Benchmarks: ours and the peers (Foundation, plistlib, dconf, Redis) in one run; see docs/BENCHMARKS.md.
bench: deps
	@scripts/install-deps.sh --bench
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark
	@scripts/bench-plistlib.sh
	@Benchmarks/cli-defaults.sh

# Fuzzing (opt-in, not part of CI): every harness for FUZZ_RUNS executions, or only FUZZ_HARNESSES; see docs/FUZZING.md.
# e.g. make fuzz FUZZ_RUNS=200000 FUZZ_HARNESSES="FuzzWire FuzzKeyPath"
FUZZ_RUNS ?= 1000000
FUZZ_HARNESSES ?=
FUZZ_SMOKE_RUNS ?= 2000

fuzz: deps
	@Fuzz/run.sh $(FUZZ_RUNS) $(FUZZ_HARNESSES)

# Each harness for FUZZ_SMOKE_RUNS executions with a fixed seed (seconds, and repeatable); `make test` ends with it.
fuzz-smoke: deps
	@FUZZ_SEED=1 Fuzz/run.sh $(FUZZ_SMOKE_RUNS)

lint:
	$(SWIFT) format lint --recursive Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks Fuzz/Package.swift Fuzz/Sources

clean:
	rm -rf .build Benchmarks/.build Fuzz/.build
