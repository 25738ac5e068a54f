# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# xdpnet: see README.md. Targets: all, check, demo, install, clean, format.

CLANG ?= clang
CC ?= gcc
BPFTOOL ?= bpftool
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man

OUT := build
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

PKGS := libbpf libxdp libnl-3.0 libnl-route-3.0 libmicrohttpd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
CFLAGS += $(WARN) -std=gnu11 -Iinclude -Iuser -I$(OUT) $(PKG_CFLAGS)
# BPF_EXTRA: more flags for the BPF objects (tests build a second,
# different build with it: tests/upgrade).
BPF_EXTRA ?=
BPF_CFLAGS := -target bpf -O2 -g $(WARN) -Wno-unused-parameter \
	-D__TARGET_ARCH_$(ARCH) -Iinclude -I$(OUT) $(BPF_EXTRA)

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))

LIB_SRCS := user/util.c user/nl.c user/format.c user/cli.c user/lock.c \
	user/pins.c user/hooks.c user/reconcile.c user/policy.c \
	user/follower.c user/daemon.c user/cmd_attach.c user/cmd_detach.c \
	user/cmd_status.c user/cmd_fdb.c user/stats.c user/latency.c \
	user/exporter.c
LIB_OBJS := $(patsubst user/%.c,$(OUT)/%.o,$(LIB_SRCS))

UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(wildcard tests/unit/test_*.c))
BPF_TESTS := $(OUT)/tests/bpf_prog_test
TOOLS := $(OUT)/tests/vnet_relay $(OUT)/tests/promlint $(OUT)/tests/xnt_frames
# scripts/bench's tools (tests/tools/xnb_*).
BENCH_TOOLS := $(OUT)/tests/xnb_pktgen $(OUT)/tests/xnb_tapsink \
	$(OUT)/tests/xnb_crr

.SECONDARY:

.PHONY: all deps check check-unit check-bpf check-integration demo install \
	uninstall clean format bench-tools check-bench

all: $(OUT)/xdpnet $(TOOLS) $(BENCH_TOOLS)

deps:
	scripts/deps.sh

$(OUT):
	mkdir -p $(OUT)/tests

# vmlinux.h: generated from the running kernel's BTF when bpftool and BTF
# are there; the committed copy otherwise, so a build never depends on it.
$(OUT)/vmlinux.h: | $(OUT)
	@if [ -r /sys/kernel/btf/vmlinux ] && command -v $(BPFTOOL) >/dev/null && \
	    $(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp 2>/dev/null; then \
		mv $@.tmp $@; echo "  GEN      $@ (from /sys/kernel/btf/vmlinux)"; \
	else \
		rm -f $@.tmp; cp vmlinux/vmlinux.h $@; echo "  GEN      $@ (committed fallback)"; \
	fi

$(OUT)/%.bpf.o: bpf/%.bpf.c bpf/*.h include/xdpnet.h $(OUT)/vmlinux.h | $(OUT)
	@echo "  BPF      $@"
	@$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	@echo "  SKEL     $@"
	@$(BPFTOOL) gen skeleton $< > $@

$(OUT)/%.o: user/%.c user/*.h include/xdpnet.h $(SKELS) | $(OUT)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) -c $< -o $@

$(OUT)/xdpnet: $(OUT)/main.o $(LIB_OBJS)
	@echo "  LD       $@"
	@$(CC) $(CFLAGS) $^ -o $@ $(PKG_LIBS)

$(OUT)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(PKG_LIBS) -lcmocka

$(OUT)/tests/bpf_prog_test: tests/bpf/bpf_prog_test.c $(LIB_OBJS)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(PKG_LIBS) -lcmocka

$(OUT)/tests/vnet_relay: tests/tools/vnet_relay.c | $(OUT)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< -o $@ -lpthread

$(OUT)/tests/promlint: tests/tools/promlint.c tests/unit/promlint.h | $(OUT)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< -o $@ -lm

$(OUT)/tests/xnb_pktgen.bpf.o: tests/tools/xnb_pktgen.bpf.c $(OUT)/vmlinux.h | $(OUT)
	@echo "  BPF      $@"
	@$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/tests/xnb_pktgen.skel.h: $(OUT)/tests/xnb_pktgen.bpf.o
	@echo "  SKEL     $@"
	@$(BPFTOOL) gen skeleton $< name xnb_pktgen_bpf > $@

$(OUT)/tests/xnb_pktgen: tests/tools/xnb_pktgen.c $(OUT)/tests/xnb_pktgen.skel.h
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) -I$(OUT)/tests $< -o $@ $(PKG_LIBS)

$(OUT)/tests/xnb_%: tests/tools/xnb_%.c | $(OUT)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< -o $@

# tests/integration/semantics.sh's frame sender and counter.
$(OUT)/tests/xnt_%: tests/tools/xnt_%.c | $(OUT)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< -o $@

bench-tools: $(BENCH_TOOLS)

# scripts/bench: the harness's unit tests, then a short smoke run (root,
# about a minute). The benchmark itself: sudo scripts/bench --quick|--full.
check-bench: deps
	$(MAKE) $(OUT)/xdpnet $(OUT)/tests/vnet_relay bench-tools
	tests/bench/run.sh

check-unit: $(UNIT_TESTS)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done

check-bpf: $(BPF_TESTS)
	$(BPF_TESTS)

check-integration: all
	tests/integration/run.sh

# Real guests (root): QEMU VMs on taps through xdpnet (tests/vm/run.sh).
# Installs QEMU (tests/vm/deps.sh) and caches a guest kernel and busybox in
# /var/cache/xdpnet-vm. About 2-3 minutes under TCG on 2 cores.
.PHONY: check-vm
check-vm: deps
	tests/vm/deps.sh
	$(MAKE) $(OUT)/xdpnet
	tests/vm/run.sh

# The whole suite, as CI runs it (as root): unit, BPF program, integration,
# the benchmark harness's tests and smoke run, real guests (CHECK_VM=0
# skips those).
check: deps
	$(MAKE) all $(UNIT_TESTS) $(BPF_TESTS)
	$(MAKE) check-unit
	$(MAKE) check-bpf
	$(MAKE) check-integration
	$(MAKE) check-bench
	@if [ "$(CHECK_VM)" != 0 ]; then $(MAKE) check-vm; else echo "check-vm skipped (CHECK_VM=0)"; fi

# The demo, then the quick benchmark (a few minutes; BENCH=0 skips it).
demo: deps
	$(MAKE) all
	scripts/demo.sh
	@if [ "$(BENCH)" != 0 ]; then scripts/bench --quick -q; fi

install: $(OUT)/xdpnet
	install -D -m 0755 $(OUT)/xdpnet $(DESTDIR)$(SBINDIR)/xdpnet
	install -D -m 0644 docs/xdpnet.8 $(DESTDIR)$(MANDIR)/man8/xdpnet.8

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/xdpnet $(DESTDIR)$(MANDIR)/man8/xdpnet.8

format:
	clang-format -i bpf/*.c bpf/*.h user/*.c user/*.h include/*.h \
		tests/unit/*.c tests/bpf/*.c tests/tools/*.c

clean:
	rm -rf $(OUT)
