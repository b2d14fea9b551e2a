# The two commands a new user needs: `make run` and `make test`. Both install missing Debian
# packages first (scripts/install-deps.sh), so they work on a fresh Debian 12 with Swift 6.3.

SWIFT ?= swift
PREFIX ?= /usr/local
CONFIGURATION ?= release

.PHONY: deps run test build bench fuzz lint clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c $(CONFIGURATION)

# The main job: a demonstration of plutil on a sample property list.
run: build
	@scripts/demo.sh "$$($(SWIFT) build -c $(CONFIGURATION) --show-bin-path)"

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	@scripts/install-deps.sh --bench
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

fuzz: deps
	@Fuzz/run.sh

lint:
	$(SWIFT) format lint --recursive Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks Fuzz/Package.swift Fuzz/Sources

clean:
	rm -rf .build Benchmarks/.build Fuzz/.build
