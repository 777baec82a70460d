# The two commands: `make demo` and `make test`. Both install missing Debian packages when run
# as root, configure and build into build/, then run.
BUILD      ?= build
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
PACKAGES   := cmake g++ make libboost-context-dev libtbb-dev libgtest-dev libgmock-dev libbenchmark-dev
# For the test suite: the workflow files' check (PyYAML), clang++ for the consumer projects
# (duet's headers must build without warnings under both compilers), header-only libraries that
# the instrumented tests run unmodified on fibers, liburcu (per-thread registration hooks),
# Boost.Thread (thread_specific_ptr on fibers), RocksDB (a large library on fibers), and the arm64
# cross compiler (Multiarch.HeadersCompileForArm64: what includes third-party headers compiles
# for arm64, so `make test` catches what would break `make multiarch`), and libFuzzer's runtime
# (Fuzz.ClusterFuzzLiteBuild: the fuzzing services' build step, run here).
TEST_PACKAGES := python3-yaml clang libclang-rt-14-dev libatomic-queue-dev libcuckoo-dev libxenium-dev libconcurrentqueue-dev liburcu-dev libck-dev libcds-dev \
                 libboost-thread-dev g++-aarch64-linux-gnu librocksdb-dev
BENCH_PACKAGES := librapidcheck-dev
# For the timeline test (the checker's HTML page opened in a real browser); optional: without
# it that one test is skipped and says so.
BROWSER_PACKAGES := chromium

.PHONY: demo test bench soak soak-loaded fuzz deps browser configure build asan tsan clean multiarch package \
        verify merge-certificates

deps:
	@missing=""; for p in $(PACKAGES) $(EXTRA_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "duet: installing missing Debian packages:$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	  else \
	    echo "duet: missing Debian packages:$$missing"; \
	    echo "      install them with: sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

browser:
	@if ! command -v chromium >/dev/null 2>&1 && [ "$$(id -u)" = "0" ]; then \
	  echo "duet: installing $(BROWSER_PACKAGES) for the timeline test"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  { apt-get update -qq && apt-get install -y -qq --no-install-recommends $(BROWSER_PACKAGES) >/dev/null; } || \
	    echo "duet: could not install $(BROWSER_PACKAGES); the timeline browser test will be skipped"; \
	fi

# Installing does not build everything first: `make package` builds only what it installs.
configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON >/dev/null

build: configure
	@echo "duet: building in $(BUILD)/ (log: $(BUILD)/build.log)"
	@cmake --build $(BUILD) -j $(JOBS) > $(BUILD)/build.log 2>&1 || { tail -n 60 $(BUILD)/build.log; exit 1; }

# The demo needs the libraries and duet-demo only: no test or benchmark is compiled.
demo: configure
	@echo "duet: building the libraries and the demo in $(BUILD)/ (about three minutes on 2 cores; log: $(BUILD)/build.log)"
	@cmake --build $(BUILD) -j $(JOBS) --target duet-demo > $(BUILD)/build.log 2>&1 || { tail -n 60 $(BUILD)/build.log; exit 1; }
	@$(BUILD)/bin/duet-demo

test: browser
	@$(MAKE) --no-print-directory build EXTRA_PACKAGES="$(TEST_PACKAGES)"
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 600

# Long campaigns split across machines (soak, soak-loaded, fuzz, multiarch, verify): SHARD=i of
# SHARDS runs the i-th part (0-based), the parts disjoint and together the whole campaign. ctest's
# tests i+1, i+1+SHARDS, ... (ctest -I); a test binary run directly gets GoogleTest's sharding
# variables; verify's walk is split by DUET_SHARDS. Not GoogleTest's variables under ctest: each
# ctest test runs one GoogleTest test, which only shard 0 of a binary's sharding would run.
SHARDS ?= 4
comma := ,
CTEST_SHARD = $(if $(SHARD),-I $(shell echo $$(($(SHARD) + 1)))$(comma)$(comma)$(SHARDS))

# Long campaigns, not part of `make test`: rare races (DUET_SOAK=1), and every negative test
# repeated 100 times (each must find its counterexample every time).
soak: build
	@cd $(BUILD) && DUET_SOAK=1 ctest --output-on-failure -L negative -j 1 $(CTEST_SHARD)
	@cd $(BUILD) && ctest --output-on-failure -L negative --repeat until-fail:100 -j 1 $(CTEST_SHARD)

# Every negative test on threads 20 times with a busy loop on every CPU: each must find its race
# every time within its default budget (the table in docs/parallel.md comes from this).
soak-loaded: build
	@$(if $(SHARD),GTEST_TOTAL_SHARDS=$(SHARDS) GTEST_SHARD_INDEX=$(SHARD)) \
	  tests/soak/negative_under_load.sh $(BUILD)/bin/duet_negative_tests 20

# Bounded verification split into shards (docs/verifying.md): the models' Treiber stack for every
# program of 2 branches × up to 3 calls after a prefix of up to 1 over values {0, 1}, every
# execution under the C++ memory model (about 11 minutes of one core), in SHARDS shards run
# VERIFY_JOBS at a time (every core: one shard per core), or only shard SHARD (one job of a CI
# matrix); each shard leaves its certificate in $(BUILD)/certificates/ (its output beside it,
# shard-<i>.log), and without SHARD they are merged into one verdict at the end.
VERIFY_JOBS ?= $(JOBS)
VERIFY_TESTS ?= EveryProgram.DISABLED_TheTreiberStackIsCorrectForEveryProgramOfTwoBranchesOfThreeCalls
CERTIFICATES ?= $(BUILD)/certificates
verify: configure
	@cmake --build $(BUILD) -j $(JOBS) --target duet_fiber_tests duet-merge-certificates > $(BUILD)/build.log 2>&1 || \
	  { tail -n 60 $(BUILD)/build.log; exit 1; }
	@mkdir -p $(CERTIFICATES); \
	echo "duet: $(if $(SHARD),shard $(SHARD),$(SHARDS) shards) of $(SHARDS), $(VERIFY_JOBS) at a time (output: $(CERTIFICATES)/shard-<i>.log)"; \
	printf '%s\n' $(if $(SHARD),$(SHARD),$$(seq 0 $$(($(SHARDS) - 1)))) | \
	  DUET_SHARDS=$(SHARDS) DUET_CERTIFICATE=$(CERTIFICATES)/ DUET_VERBOSE=1 FILTER='$(VERIFY_TESTS)' \
	  xargs -P $(VERIFY_JOBS) -I{} sh -c 'rm -f $(CERTIFICATES)/*.shard-{}-of-$(SHARDS).cert; \
	    DUET_SHARD_INDEX={} $(BUILD)/bin/duet_fiber_tests --gtest_also_run_disabled_tests --gtest_filter="$$FILTER" \
	      > $(CERTIFICATES)/shard-{}.log 2>&1; s=$$?; echo "duet: shard {} of $(SHARDS) ended ($$s): $$(tail -n 1 $(CERTIFICATES)/shard-{}.log)"; exit $$s'; \
	status=$$?; \
	if [ -z "$(SHARD)" ]; then $(BUILD)/bin/duet-merge-certificates $(CERTIFICATES); else exit $$status; fi

# The certificates under CERTIFICATES (the shards' of `make verify`, gathered from CI jobs) merged.
merge-certificates: configure
	@cmake --build $(BUILD) -j $(JOBS) --target duet-merge-certificates > $(BUILD)/build.log 2>&1 || \
	  { tail -n 60 $(BUILD)/build.log; exit 1; }
	@$(BUILD)/bin/duet-merge-certificates $(CERTIFICATES)

# A short libFuzzer campaign on the seed examples' fuzz targets (about 2 minutes; FUZZ_SECONDS per
# target): Clang builds the targets (tests/fuzz/targets/build.sh), the ordinary build replays
# what they find. Long campaigns: run build-fuzz/out/duet-fuzz-* by hand (docs/fuzzing.md).
FUZZ_PACKAGES := clang libclang-rt-14-dev zip bc
FUZZ_SECONDS ?= 30
fuzz:
	@$(MAKE) --no-print-directory build EXTRA_PACKAGES="$(FUZZ_PACKAGES)"
	@echo "duet: building the fuzz targets with clang in build-fuzz/ (log: build-fuzz/fuzz-build.log)"
	@tests/fuzz/targets/build.sh >/dev/null
	@$(if $(SHARD),DUET_CAMPAIGN_SHARDS=$(SHARDS) DUET_CAMPAIGN_SHARD=$(SHARD)) \
	  tests/fuzz/targets/campaign.sh $(BUILD) build-fuzz/out $(FUZZ_SECONDS)

bench:
	@$(MAKE) --no-print-directory build EXTRA_PACKAGES="$(BENCH_PACKAGES)"
	@$(BUILD)/bin/duet-bench --benchmark_counters_tabular=true

# Sanitizer builds (CMake presets): build and run the whole suite under each.
# asan-racy: the negative tests on threads race on purpose; isolated (DUET_FORK=1), a race that
# corrupts memory ends a child with the sanitizer's report, a counterexample like any other.
asan: deps
	@cmake --preset asan >/dev/null && cmake --build --preset asan -j $(JOBS) >/dev/null && ctest --preset asan -j $(JOBS) && \
	  ctest --preset asan-racy -j 1
tsan: deps
	@cmake --preset tsan >/dev/null && cmake --build --preset tsan -j $(JOBS) >/dev/null && ctest --preset tsan -j $(JOBS)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-debug build-fuzz

# The suite cross-built for other architectures and run under qemu-user (not part of `make
# test`; about 30 minutes an architecture on 2 cores): docs/multiarch.md.
ARCHS ?= arm64 ppc64el s390x
multiarch:
	@ARCHS="$(ARCHS)" JOBS=$(JOBS) MULTIARCH_CTEST_ARGS="$$MULTIARCH_CTEST_ARGS $(CTEST_SHARD)" tests/multiarch/run.sh

# A .deb of the headers, libraries, CMake package and duet-check (CPack), in build/package/;
# only the installed targets are built.
package: configure
	@echo "duet: building the installed targets in $(BUILD)/ (log: $(BUILD)/build.log)"
	@cmake --build $(BUILD) -j $(JOBS) --target duet-installed > $(BUILD)/build.log 2>&1 || { tail -n 60 $(BUILD)/build.log; exit 1; }
	@cd $(BUILD) && cpack -G DEB >/dev/null && ls package/*.deb
