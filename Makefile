# SPDX-License-Identifier: Apache-2.0
# The two commands a new user needs: `make run` and `make test`. Both install missing Debian
# packages first (scripts/install-deps.sh), so they work on a fresh Debian 12 with Swift 6.3.

SWIFT ?= swift
PREFIX ?= /usr/local
# Where `make build` puts the release executables (scripts/build-release.sh).
BIN_DIR := $(CURDIR)/.build/dist/bin

.PHONY: deps run demo test test-deb test-system build install deb docs bench fuzz fuzz-smoke soak instruction-counts lint \
	clean

deps:
	@scripts/install-deps.sh

# The release executables as they are installed and packaged, in BIN_DIR: the Swift runtime linked statically, every C
# library shared (docs/PACKAGING.md, "Linking").
build: deps
	@SWIFT=$(SWIFT) scripts/build-release.sh "$(BIN_DIR)" >/dev/null

# The main job: prefsd in the foreground on the default socket and Preferences directory (Control-C stops it).
run: build
	@scripts/run-prefsd.sh "$(BIN_DIR)"

# plutil on a sample property list, step by step.
demo: build
	@scripts/demo.sh "$(BIN_DIR)"

# The executables, the systemd user units, the shipped Domains/, manual pages and completions under PREFIX.
install: deps
	@SWIFT=$(SWIFT) scripts/install.sh "$(PREFIX)"

# The Debian packages (preferences, python3-preferences), built from debian/ by dpkg-buildpackage from the release
# executables of `make build`, in .build/deb with their .changes (docs/PACKAGING.md).
deb: deps
	@SWIFT=$(SWIFT) scripts/build-deb.sh

# The packages' contents checked: paths, linking, alternatives, units, maintainer scripts, the Python module, lintian.
# Compressed with gzip -1, which takes seconds where xz takes minutes; `make deb` keeps xz.
test-deb: deps
	@BIN_DIR="$(BIN_DIR)" scripts/check-deb.sh \
		"$$(SWIFT=$(SWIFT) PREFERENCES_DEB_COMPRESSION="-Zgzip -z1" scripts/build-deb.sh)"

# Instructions of the hot paths of the release executables (callgrind) against Benchmarks/Thresholds: a path more
# than 10 % above its threshold fails (scripts/instruction-counts.sh; --update after an intended change).
instruction-counts: build
	@scripts/instruction-counts.sh "$(BIN_DIR)"

# Needs root, takes minutes, not part of `make test` (CI runs it after `make test`, on the packages that built, where
# it is root and may make namespaces): the packages installed in a Debian 12 root booted with its own systemd as PID 1,
# prefsd checked as a socket-activated user service, the autopkgtests run there (docs/SYSTEMD.md).
test-system: deps
	@scripts/install-deps.sh --system
	@SWIFT=$(SWIFT) scripts/test-system.sh \
		"$$(SWIFT=$(SWIFT) PREFERENCES_DEB_COMPRESSION="-Zgzip -z1" scripts/build-deb.sh)"

# Everything (scripts/test.sh): the debug build, the tests, then the racing-process proofs with the documentation
# built beside them; in lanes at the lowest priority, so that they take the CPU the tests leave idle, the Python client
# against the built prefsd, the release executables with their instruction counts and the Debian package's contents,
# and every fuzz harness briefly. `test-deb`, `fuzz-smoke` and `instruction-counts` run one part alone.
test: deps
	@SWIFT=$(SWIFT) FUZZ_SMOKE_RUNS=$(FUZZ_SMOKE_RUNS) scripts/test.sh

# The DocC documentation of the libraries (Preferences, PrefsPlist, PrefsDomain, PrefsStore, and PrefsErrors, whose
# CodedError their error types adopt), as one static site in .build/docs (swift-docc-plugin; every link must resolve
# and any warning fails). Serve it from there, for example with `python3 -m http.server -d .build/docs`, and open
# /documentation/ (a page per module).
DOCS_DIR ?= .build/docs

docs: deps
	$(SWIFT) package --allow-writing-to-directory $(DOCS_DIR) generate-documentation \
		--target Preferences --target PrefsPlist --target PrefsDomain --target PrefsStore --target PrefsErrors \
		--enable-experimental-combined-documentation --warnings-as-errors \
		--transform-for-static-hosting --output-path $(DOCS_DIR)

# Benchmarks: ours and the peers (Foundation, plistlib, dconf, Redis, a raw etcd watch) in one run; see
# docs/BENCHMARKS.md. The release executables come first: DaemonBenchmarks and FleetBenchmarks run the release prefsd
# and the release defaults. Only PlistBenchmarks and PreferencesBenchmarks are ordo-one benchmarks: the plugin
# would run every executable under Benchmarks/Benchmarks as one, the load generators included, and they crash so.
# PlistRatios gives the property-list ratios: ours, Foundation and plistlib alternating round by round.
bench: deps
	@scripts/install-deps.sh --bench
	@scripts/build-release.sh >/dev/null
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark --target PlistBenchmarks \
		--target PreferencesBenchmarks
	cd Benchmarks && $(SWIFT) run -c release DaemonBenchmarks
	cd Benchmarks && $(SWIFT) run -c release FleetBenchmarks
	cd Benchmarks && $(SWIFT) run -c release PlistRatios
	@Benchmarks/cli-defaults.sh --runs 60
	@Benchmarks/gsettings.sh "$(BIN_DIR)"
	@Benchmarks/footprint.sh

# Fuzzing (opt-in, not part of CI): every harness for FUZZ_RUNS executions, or only FUZZ_HARNESSES; see docs/FUZZING.md.
# e.g. make fuzz FUZZ_RUNS=200000 FUZZ_HARNESSES="FuzzWire FuzzKeyPath"
FUZZ_RUNS ?= 1000000
FUZZ_HARNESSES ?=
FUZZ_SMOKE_RUNS ?= 2000

fuzz: deps
	@Fuzz/run.sh $(FUZZ_RUNS) $(FUZZ_HARNESSES)

# Each harness for FUZZ_SMOKE_RUNS executions with a fixed seed (seconds, and repeatable), from a debug build, which
# compiles several times faster than the release build of `make fuzz`; `make test` runs it.
fuzz-smoke: deps
	@FUZZ_SEED=1 FUZZ_CONFIGURATION=debug Fuzz/run.sh $(FUZZ_SMOKE_RUNS)

# A soak of prefsd (opt-in, not part of `make test` or CI): the release build under a mixed load for SOAK_MINUTES
# (default 30): behaving and misbehaving clients, subscribers, a hand edit every second, SIGHUP every minute. Memory,
# descriptors and threads must stay flat and nothing acknowledged may be lost (scripts/soak.py, docs/DAEMON.md).
SOAK_MINUTES ?= 30

soak: build
	@python3 scripts/soak.py --bin "$(BIN_DIR)" --minutes $(SOAK_MINUTES)

lint:
	$(SWIFT) format lint --recursive Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks Fuzz/Package.swift Fuzz/Sources

clean:
	rm -rf .build Benchmarks/.build Fuzz/.build
