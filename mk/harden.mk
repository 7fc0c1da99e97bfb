# Hardening targets: `make audit` (cargo-deny, offline against a vendored RustSec snapshot) and
# `make fuzz` (cargo-fuzz, each target for a bounded time). Included from the top-level Makefile.

# --- audit -------------------------------------------------------------------------------------

# The RustSec advisory database as a shallow git clone (no network here, so it is vendored).
ADVISORY_TARBALL ?= ../shared/advisory-db.tar.gz
# deny.toml's `[advisories] db-path`; cargo-deny looks for the clone in a folder named after a
# hash of the database URL (https://github.com/rustsec/advisory-db).
ADVISORY_DB_PATH := target/advisory-db
ADVISORY_DB := $(ADVISORY_DB_PATH)/advisory-db-3157b0e258782691

.PHONY: audit
audit: $(ADVISORY_DB)/.unpacked
	@command -v cargo-deny >/dev/null || cargo install --locked cargo-deny
	@echo "RustSec advisory snapshot: $$(git -C $(ADVISORY_DB) log -1 --format="%cd (commit %h)" --date=short)," \
	      "$$(find $(ADVISORY_DB)/crates $(ADVISORY_DB)/rust -name '*.md' | wc -l) advisories (crates + rust toolchain)"
	@# cargo-deny reads `cargo metadata` offline, which needs every locked crate in the cache,
	@# those of other targets too (r-efi, windows-*): fetch them first (a no-op when cached).
	cargo fetch --locked
	cargo deny --offline check advisories bans licenses sources

# Without the snapshot there is nothing to audit against: say what is needed and how to make it.
$(ADVISORY_TARBALL):
	@echo "make audit: the RustSec advisory database snapshot $(ADVISORY_TARBALL) is missing." >&2
	@echo "  Make one where there is network:" >&2
	@echo "    git clone --depth 1 https://github.com/rustsec/advisory-db && tar czf $(ADVISORY_TARBALL) advisory-db" >&2
	@echo "  or name another one: make audit ADVISORY_TARBALL=/path/to/advisory-db.tar.gz" >&2
	@exit 2

$(ADVISORY_DB)/.unpacked: $(ADVISORY_TARBALL)
	rm -rf $(ADVISORY_DB_PATH) && mkdir -p $(ADVISORY_DB_PATH)
	tar xzf $(ADVISORY_TARBALL) -C $(ADVISORY_DB_PATH)
	mv $(ADVISORY_DB_PATH)/advisory-db $(ADVISORY_DB)
	touch $@

# --- fuzz --------------------------------------------------------------------------------------

# Seconds per target; every target in fuzz/fuzz_targets/ runs in turn, in one libFuzzer process
# (the build machine has two shared cores).
FUZZ_SECS ?= 60
FUZZ_TARGETS ?= $(sort $(notdir $(basename $(wildcard fuzz/fuzz_targets/*.rs))))
# Extra libFuzzer flags, e.g. FUZZ_FLAGS='-max_len=8192'.
FUZZ_FLAGS ?=
# Debug assertions on, so that integer overflow is a finding; no sanitizer, since the crate
# forbids unsafe code and ASan would only halve the executions per second.
FUZZ_BUILD_FLAGS ?= --debug-assertions --sanitizer none

.PHONY: fuzz fuzz-build
fuzz-build:
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
	cargo +nightly fuzz build $(FUZZ_BUILD_FLAGS)

# The generated corpus lives in fuzz/corpus/<target> (gitignored); the committed seeds in
# fuzz/seeds/<target> are read as a second, read-only corpus directory. A crash ends that target's
# run and leaves the input in fuzz/artifacts/<target>/; the other targets still run, and the make
# fails at the end naming the targets with findings.
fuzz: fuzz-build
	@failed=""; for t in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/corpus/$$t fuzz/seeds/$$t; \
	  echo "== fuzz $$t for $(FUZZ_SECS)s"; \
	  cargo +nightly fuzz run $(FUZZ_BUILD_FLAGS) $$t fuzz/corpus/$$t fuzz/seeds/$$t -- \
	    -max_total_time=$(FUZZ_SECS) -print_final_stats=1 $(FUZZ_FLAGS) || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: findings in:$$failed (inputs in fuzz/artifacts/)"; exit 1; fi
