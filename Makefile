SHELL := /bin/bash
# Trove's commands. `make demo` and `make test` work on a fresh machine: they install what they need.
SWIFT ?= swift
BUILD_LOG := .build/trove-build.log
TEST_LOG := .build/trove-test.log

.PHONY: all setup build test demo bench clean fuzz docs lint

all: build

setup:
	@scripts/setup.sh

# Builds everything (tests included) and fails on any warning in our own sources.
build: setup
	@mkdir -p .build
	$(SWIFT) build --build-tests 2>&1 | tee $(BUILD_LOG); test $${PIPESTATUS[0]} -eq 0
	@scripts/check-warnings.sh $(BUILD_LOG)

# One test at a time: on this project's 2-core machines a parallel run starves the loopback servers and the
# CLI subprocesses for seconds at a time, which breaks tests' timeouts and fail-fast bounds. Serially the
# whole suite takes about six minutes. First, in under a second: docs/ARCHITECTURE.md names only files, types,
# functions and paths that exist (scripts/check-architecture-doc.py; `make lint` runs it too).
# Pillow's venv is made before the tests, not by the first test that needs it. A failing run ends by repeating
# its failures and the last tests started, so that the tail of the log (all a CI summary may show) names them.
test: build
	scripts/check-architecture-doc.py --self-test >/dev/null
	scripts/check-architecture-doc.py
	scripts/pillow/python.sh -c 'import PIL'
	$(SWIFT) test --skip-build --no-parallel 2>&1 | tee $(TEST_LOG); status=$${PIPESTATUS[0]}; \
		if [ $$status -ne 0 ]; then echo "== what failed (exit $$status) =="; \
		grep -a 'recorded an issue' $(TEST_LOG) | cut -c1-400 | head -n 8; \
		grep -a '^✘ Test .* failed after' $(TEST_LOG) | head -n 8; \
		echo "last started (a crash stops the run there):"; grep -a 'Test .* started' $(TEST_LOG) | tail -n 2; fi; \
		exit $$status

demo: setup
	$(SWIFT) build --product trove
	$(SWIFT) run --skip-build trove demo

# swift format (the toolchain's, with the committed .swift-format) must find nothing, every public
# declaration in Modules/ and Plugins/ must have a doc comment, and docs/ARCHITECTURE.md must name only code
# that exists. CI runs it after the tests.
lint:
	scripts/lint.sh

# The DocC catalogue (Modules/Trove/Trove.docc) as an archive in .build/docs, then a check that its four
# articles rendered and are linked and indexed. Open .build/docs/Trove.doccarchive with `docc preview` or
# serve it as static files.
docs: setup
	rm -rf .build/docs && mkdir -p .build/docs
	$(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation --target Trove \
		--output-path .build/docs/Trove.doccarchive --warnings-as-errors
	scripts/check-docs.py .build/docs/Trove.doccarchive

clean:
	rm -rf .build demo-output

# Benchmarks: a separate package (release build); every suite runs its baseline in the same run. The Thumbnail
# suite reads 24 MP inputs from .build-bench/, made first (once). After the suites: the Pillow resize baseline,
# then scripts/thumbnail-bench, the same thumbnails by `trove convert`, vipsthumbnail and Pillow's thumbnail()
# as processes (time, peak RSS, PSNR; it builds trove in release and needs libvips-tools), and
# scripts/placeholder-bench, placeholders against a thumbnail and a disk read-hit.
bench: setup
	scripts/thumbnail-bench inputs
	cd Tools/Benchmarks && $(SWIFT) package benchmark
	scripts/pillow/run_baseline.sh
	scripts/thumbnail-bench
	scripts/placeholder-bench

# libFuzzer + AddressSanitizer in release builds (Tools/Fuzz/run.sh), seeded from Tests/Fixtures; not part of
# `make test`. Fifteen targets, one after another: each decoder alone (PNG GIF JPEG WebP AVIF JXL HEIF), each
# format through a request's path (RequestPNG ... RequestHEIF: the registry's decoder with colour management, a
# shrink-on-load resize, kept profiles and orientations, the transforms, every encoder), and Pipeline:
# `ImagePipeline.image(for:)` itself, the planar JPEG route included. FUZZ_SECONDS per target, 600 by default (ten
# minutes each, two and a half hours in all); FUZZ_TARGETS to pick some.
fuzz: setup
	FUZZ_SECONDS=$${FUZZ_SECONDS:-600} Tools/Fuzz/run.sh $(FUZZ_TARGETS)
