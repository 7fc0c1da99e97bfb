# withings-mcp: build, test and release tasks. `.ci/run` runs lint, test, interop and static.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
CARGO ?= cargo
BIN := target/release/withings-mcp
MUSL := x86_64-unknown-linux-musl
STATIC := target/$(MUSL)/release/withings-mcp
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
DIST := dist/withings-mcp-$(VERSION)-$(MUSL)

.PHONY: build release test lint demo bench interop static dist

build:
	$(CARGO) build --locked

release:
	$(CARGO) build --release --locked

# Unit tests (src/**) and end-to-end tests of the real binary (tests/it). The fault, load and
# concurrency suites measure timeouts and races, so they run one at a time, after the rest, on
# an otherwise idle machine (2 cores in CI).
SERIAL_TESTS := faults:: load:: concurrency::
# The tests build with the conformance suite's fixtures, which some end-to-end tests call.
test:
	$(CARGO) test --locked --features conformance -- $(addprefix --skip ,$(SERIAL_TESTS))
	$(CARGO) test --locked --features conformance --test it -- --test-threads=1 $(SERIAL_TESTS)

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets --locked -- -D warnings
	$(CARGO) clippy --all-targets --locked --features conformance -- -D warnings

# The main job on the built-in demo account: today's daily and weekly briefs.
demo: release
	$(BIN) --demo call withings_daily_summary --markdown
	@echo
	$(BIN) --demo call withings_weekly_summary --markdown

# Start-up, memory and throughput of the shipped static binary and the glibc release build;
# writes BENCHMARKS.md. Run it on a quiet machine: the figures are wall-clock.
bench: release static
	python3 bench/bench.py $(STATIC) $(BIN) --out BENCHMARKS.md

# Python mcp SDK over stdio and HTTP, then the official conformance suite against --http, on a
# build with the suite's fixtures (the `conformance` feature; the release binary has none).
interop:
	$(CARGO) build --locked --features conformance
	interop/run.sh target/debug/withings-mcp

# A fully static binary (musl), size-optimised: no PIE relocations (a static binary is loaded at
# a fixed address anyway) and no unwind tables (panic = "abort": nothing ever unwinds).
# Source paths in panic locations are written relative to cargo's registry and to the Rust
# source tree, not as this machine's absolute paths: the same on every machine, and 20 KB less.
# (The more specific prefix is given last: rustc uses the last one that matches.)
# LLVM inlines only what costs nothing at a threshold of 0 (opt-level "z" alone still inlines a
# little more): −20 KB measured, and no call here is hot enough for an extra call to show.
# Loops are not padded to 16-byte boundaries (std's code, built for speed, pads them; x86 runs
# unaligned code the same, a little slower at most): −4 KB.
# Identical instruction tails of two instructions are merged too (LLVM's branch folding
# merges from three by default): −1 KB.
# sha2 (request signing: a few hashes a call) uses its compact portable SHA-256 instead of the
# unrolled one plus the SHA-NI path and its CPU detection: −8 KB, the same digests.
STATIC_RUSTFLAGS := -C relocation-model=static -C force-unwind-tables=no -C link-arg=-Wl,--no-eh-frame-hdr \
	-C llvm-args=-inline-threshold=0 -C llvm-args=-align-loops=1 -C llvm-args=-tail-merge-size=2 \
	--cfg sha2_backend=\"soft\" --cfg sha2_backend_soft=\"compact\"
REGISTRY_SRC = $(or $(CARGO_HOME),$(HOME)/.cargo)/registry/src/
REMAP = --remap-path-prefix=$(REGISTRY_SRC)= --remap-path-prefix=$(REGISTRY_SRC)index.crates.io-1949cf8c6b5b557f/= \
	--remap-path-prefix=/rustc/$(shell rustc -vV | sed -n 's/^commit-hash: //p')/=
static:
	rustup target list --installed | grep -qx $(MUSL) || rustup target add $(MUSL)
	command -v musl-gcc >/dev/null || { apt-get update -qq && apt-get install -y -qq musl-tools; }
	RUSTFLAGS="$(STATIC_RUSTFLAGS) $(REMAP)" $(CARGO) build --release --locked --target $(MUSL)
	objcopy --remove-section=.eh_frame --remove-section=.gcc_except_table $(STATIC)
	@echo "static binary: $(STATIC) ($$(stat -c %s $(STATIC)) bytes)"

dist: static
	rm -rf $(DIST) && mkdir -p $(DIST)/skill
	cp $(STATIC) README.md LICENSE $(DIST)/
	cp skill/SKILL.md $(DIST)/skill/
	tar -C dist -czf $(DIST).tar.gz $(notdir $(DIST))
	cd dist && sha256sum $(notdir $(DIST)).tar.gz > $(notdir $(DIST)).tar.gz.sha256
	@cat $(DIST).tar.gz.sha256

# `make audit` (cargo-deny against the vendored RustSec snapshot, offline) and `make fuzz`.
# Included last so that `build` stays the default goal.
include mk/harden.mk
