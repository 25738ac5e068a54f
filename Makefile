# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# xdpnet: see README.md. Targets: all, check, demo, install, dist, deb, clean, format.

CLANG ?= clang
CC ?= gcc
# bpftool: on PATH, else where Debian puts it (/usr/sbin, outside a normal
# user's PATH), so that `make` works without root.
ifeq ($(origin BPFTOOL),undefined)
BPFTOOL := $(firstword $(shell command -v bpftool 2>/dev/null) \
	$(wildcard /usr/sbin/bpftool /sbin/bpftool /usr/local/sbin/bpftool) bpftool)
endif
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
# The systemd unit directory, from systemd's pkg-config: as it is for
# PREFIX=/usr (the distribution's: /lib/systemd/system on Debian 12,
# /usr/lib/systemd/system since), with PREFIX as its prefix otherwise
# (/usr/local/lib/systemd/system, the administrator's, which systemd
# searches too). Without systemd's pkg-config: $(PREFIX)/lib/systemd/system.
SYSTEMD_PC_UNITDIR = $(shell $(PKG_CONFIG) \
	$(if $(filter /usr,$(PREFIX)),,--define-variable=prefix=$(PREFIX) \
	--define-variable=root_prefix=$(PREFIX)) \
	--variable=systemdsystemunitdir systemd 2>/dev/null)
UNITDIR ?= $(or $(SYSTEMD_PC_UNITDIR),$(PREFIX)/lib/systemd/system)
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# libvirt's own (SYSCONFDIR/libvirt/hooks), whatever our PREFIX.
LIBVIRT_HOOKDIR ?= /etc/libvirt/hooks

OUT := build
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

PKGS := libbpf libxdp libnl-3.0 libnl-route-3.0 libmicrohttpd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# -Werror in the project's own builds and CI; a distribution's build
# (debian/rules) sets WERROR= so that a newer compiler's new warning does
# not fail it.
WERROR ?= -Werror
WARN := -Wall -Wextra $(WERROR)
CFLAGS ?= -O2 -g
CFLAGS += $(WARN) -std=gnu11 -Iinclude -Iuser -I$(OUT) $(PKG_CFLAGS)
# BPF_EXTRA: more flags for the BPF objects (tests build a second,
# different build with it: tests/upgrade).
BPF_EXTRA ?=
BPF_CFLAGS := -target bpf -O2 -g $(WARN) -Wno-unused-parameter \
	-D__TARGET_ARCH_$(ARCH) -Iinclude -I$(OUT) $(BPF_EXTRA)

# bpf/xdpnet.bpf.c is built twice: xdpnet.bpf.o, and xdpnet_live.bpf.o with
# XDPNET_LIVE (the live datapath, bpf/xdpnet_live.h).
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_NAMES := $(patsubst bpf/%.bpf.c,%,$(BPF_SRCS)) xdpnet_live
BPF_OBJS := $(patsubst %,$(OUT)/%.bpf.o,$(BPF_NAMES))
SKELS := $(patsubst %,$(OUT)/%.skel.h,$(BPF_NAMES))

# user/: layers as folders (docs/design.md, "Layout"); scripts/check-layers
# keeps their includes pointing one way.
USER_DIRS := lib filters state datapath observe sync render cmd
LIB_SRCS := $(foreach d,$(USER_DIRS),$(sort $(wildcard user/$(d)/*.c)))
USER_HDRS := $(foreach d,$(USER_DIRS),$(wildcard user/$(d)/*.h))
LIB_OBJS := $(patsubst user/%.c,$(OUT)/%.o,$(LIB_SRCS))

UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(wildcard tests/unit/test_*.c))
BPF_TESTS := $(OUT)/tests/bpf_prog_test
TOOLS := $(OUT)/tests/vnet_relay $(OUT)/tests/promlint $(OUT)/tests/xn_filters \
	$(OUT)/tests/xnt_frames $(OUT)/tests/xnt_tcdrop.bpf.o \
	$(OUT)/tests/xnt_tcx $(OUT)/tests/xnt_tcxcount.bpf.o
# scripts/bench's tools (scripts/bench_tools/xnb_*), built into
# $(OUT)/bench_tools.
BT := $(OUT)/bench_tools
BENCH_TOOLS := $(BT)/xnb_pktgen $(BT)/xnb_tapsink $(BT)/xnb_crr \
	$(BT)/xnb_minimal $(BT)/xnb_vhost $(BT)/xnb_progtime

.SECONDARY:

.PHONY: all deps check check-unit check-bpf check-integration demo install \
	uninstall clean format bench-tools check-bench check-install check-libvirt \
	deb check-deb dist

all: $(OUT)/xdpnet $(TOOLS) $(BENCH_TOOLS)

deps:
	scripts/deps.sh

$(OUT):
	mkdir -p $(OUT)/tests

$(BT) $(OUT)/tests:
	mkdir -p $@

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

# The live datapath is the portable one with XDPNET_LIVE.
$(OUT)/xdpnet_live.bpf.o: bpf/xdpnet.bpf.c bpf/*.h include/xdpnet.h \
		$(OUT)/vmlinux.h | $(OUT)
	@echo "  BPF      $@"
	@$(CLANG) $(BPF_CFLAGS) -DXDPNET_LIVE=1 -c $< -o $@

# libbpf, inside bpftool, does not know libxdp's .xdp_run_config section
# (the XDP stage's dispatcher settings, which libxdp reads from the object
# at load) and says it skips it: that line alone is dropped, every other
# one shown.
$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	@echo "  SKEL     $@"
	@$(BPFTOOL) gen skeleton $< > $@ 2> $@.log; st=$$?; \
	grep -v 'skipping unrecognized data section([0-9]*) \.xdp_run_config$$' $@.log >&2; \
	rm -f $@.log; [ $$st = 0 ] || rm -f $@; exit $$st

$(OUT)/%.o: user/%.c $(USER_HDRS) include/xdpnet.h $(SKELS) | $(OUT)
	@echo "  CC       $@"
	@mkdir -p $(@D)
	@$(CC) $(CFLAGS) -c $< -o $@

# xdpnet version's git description: `git describe --always --dirty` of
# this tree; in a release tarball (make dist), the one .git-describe
# records; "unknown" with neither. build/git_desc holds it,
# rewritten only when it changes, so that a change rebuilds cmd/table.o
# alone.
GIT_DESC := $(shell [ -e .git ] && git describe --always --dirty 2>/dev/null || \
	cat .git-describe 2>/dev/null || echo unknown)

.PHONY: FORCE
$(OUT)/git_desc: FORCE | $(OUT)
	@[ "$$(cat $@ 2>/dev/null)" = "$(GIT_DESC)" ] || echo "$(GIT_DESC)" > $@

$(OUT)/cmd/table.o: $(OUT)/git_desc
$(OUT)/cmd/table.o: CFLAGS += -DXN_GIT_DESC='"$(GIT_DESC)"'

$(OUT)/xdpnet: $(OUT)/main.o $(LIB_OBJS)
	@echo "  LD       $@"
	@$(CC) $(CFLAGS) $^ -o $@ $(PKG_LIBS)

comma := ,
$(OUT)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(WRAP) $(PKG_LIBS) -lcmocka

# test_lookups stands in for netlink's answers and the privilege checks.
$(OUT)/tests/test_lookups: WRAP := $(patsubst %,-Wl$(comma)--wrap=%,\
	xn_get_link xn_get_link_by_index xn_require_root xn_prepare_for \
	xn_prepare xn_attach_bridge)

# tests/bpf: a harness (tests/bpf/*.c) and one file per job
# (tests/bpf/prog_tests/*.c), run against both builds of the datapath.
BPF_TEST_SRCS := $(wildcard tests/bpf/*.c tests/bpf/prog_tests/*.c)
$(OUT)/tests/bpf_prog_test: $(BPF_TEST_SRCS) tests/bpf/*.h $(LIB_OBJS) \
		$(OUT)/xdpnet.skel.h $(OUT)/xdpnet_live.skel.h
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) -Itests/bpf $(BPF_TEST_SRCS) $(LIB_OBJS) -o $@ \
		$(PKG_LIBS)

$(OUT)/tests/vnet_relay: tests/tools/vnet_relay.c | $(OUT)/tests
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< -o $@ -lpthread

$(OUT)/tests/xn_filters: tests/tools/xn_filters.c $(LIB_OBJS)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(PKG_LIBS)

$(OUT)/tests/promlint: tests/tools/promlint.c tests/unit/promlint.h | $(OUT)/tests
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< -o $@ -lm

# Bench tools with a BPF program of their own
# (scripts/bench_tools/xnb_*.bpf.c).
BENCH_BPF_TOOLS := $(BT)/xnb_pktgen $(BT)/xnb_minimal

$(BT)/xnb_%.bpf.o: scripts/bench_tools/xnb_%.bpf.c scripts/bench_tools/*.h \
		$(OUT)/vmlinux.h | $(BT)
	@echo "  BPF      $@"
	@$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BT)/xnb_%.skel.h: $(BT)/xnb_%.bpf.o
	@echo "  SKEL     $@"
	@$(BPFTOOL) gen skeleton $< name xnb_$*_bpf > $@

$(BENCH_BPF_TOOLS): $(BT)/%: scripts/bench_tools/%.c scripts/bench_tools/*.h \
		$(BT)/%.skel.h
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) -I$(BT) $< -o $@ $(PKG_LIBS)

$(BT)/xnb_%: scripts/bench_tools/xnb_%.c scripts/bench_tools/xnb_tool.h | $(BT)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< -o $@

# The XDP stage's program time (scripts/bench --progtime): the project's
# own loader (it loads the stage again on a bridge's maps) and
# xdp-minimal's skeleton.
$(BT)/xnb_progtime: scripts/bench_tools/xnb_progtime.c \
		scripts/bench_tools/xnb_tool.h $(LIB_OBJS) $(BT)/xnb_minimal.skel.h
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) -I$(BT) $< $(LIB_OBJS) -o $@ $(PKG_LIBS)

# xnb_vhost's ring logic, shared with its unit test.
$(BT)/xnb_vhost $(OUT)/tests/test_vring: scripts/bench_tools/xnb_vring.h \
	scripts/bench_tools/xnb_vframe.h scripts/bench_tools/xnb_vrec.h

# xnb_vhost: the device and each mode in a file of its own.
$(BT)/xnb_vhost: $(wildcard scripts/bench_tools/xnb_vhost*.c) \
		scripts/bench_tools/xnb_vhost.h scripts/bench_tools/xnb_tool.h | $(BT)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $(filter %.c,$^) -o $@

# tests/integration/semantics.sh's tc filter that drops everything, and
# share.sh's tcx program of another party (placed by xnt_tcx).
$(OUT)/tests/xnt_%.bpf.o: tests/tools/xnt_%.bpf.c $(OUT)/vmlinux.h \
		bpf/xdpnet_parse.h | $(OUT)/tests
	@echo "  BPF      $@"
	@$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# share.sh's tcx placer and query (links lib/tcx.c).
$(OUT)/tests/xnt_tcx: tests/tools/xnt_tcx.c $(LIB_OBJS)
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(PKG_LIBS)

# tests/integration/semantics.sh's frame sender and counter.
$(OUT)/tests/xnt_%: tests/tools/xnt_%.c | $(OUT)/tests
	@echo "  CC       $@"
	@$(CC) $(CFLAGS) $< -o $@

bench-tools: $(BENCH_TOOLS)

# scripts/bench: the harness's unit tests, then a short smoke run (root,
# about a minute). The benchmark itself: sudo scripts/bench --quick|--full.
check-bench: deps
	$(MAKE) $(OUT)/xdpnet $(OUT)/tests/vnet_relay bench-tools
	tests/bench/run.sh

# user/'s rooms include one way, each only the rooms it rests on, and no
# module includes itself back (scripts/check-layers; docs/design.md,
# "Layout").
.PHONY: check-layers
check-layers:
	scripts/check-layers

# The man page against the command line's table, the prose docs' rules
# (no commit hash, no run date), the README's length and every doc link
# (scripts/check-docs).
.PHONY: check-docs
check-docs: $(OUT)/xdpnet
	scripts/check-docs --xdpnet $(OUT)/xdpnet

check-unit: check-layers check-rules check-docs $(UNIT_TESTS)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done
	/usr/bin/python3 -m unittest discover -s tests/fuzz -p 'test_*.py'

# The Prometheus alerting rules (contrib/prometheus/): valid, and their
# unit tests (series that fire each alert, and series that must not).
.PHONY: check-rules
check-rules:
	scripts/promtool check rules contrib/prometheus/xdpnet.rules.yml
	cd contrib/prometheus && ../../scripts/promtool test rules xdpnet.rules.test.yml

# Root: every program of both builds loads, the tables and a fuzz run of
# 100,000 frames (BPF_FUZZ=N changes that, BPF_SEED=S the seed).
check-bpf: $(BPF_TESTS)
	$(BPF_TESTS) $(if $(BPF_FUZZ),--fuzz $(BPF_FUZZ)) \
		$(if $(BPF_SEED),--seed $(BPF_SEED))

# The integration suites (tests/integration), each with names of its own,
# so that they can run side by side: semantics.sh's veth and tap stand-ins
# as two suites (the tap one under the prefix xnr, without the STP loop,
# which the veth one runs), run.sh's own sections, and the suites it used
# to run one after the other. Longest first: tests/suites.sh starts them
# in this order.
SEM_TAP_CASES := flood,vxlan,stp,isolation,moved,locked,learning,static,mtu,nfswitch,nfcheck,gso,ageing,silence,shortage,hub,tc,tcnow,promisc,tunnel,tcn,vlan,vlanstate,qinq,vtunnel,vlanchange,vlandev,tcx,tcxegress,xdpfilter
S_SEM_VETH := 'semantics-veth=tests/integration/semantics.sh --kinds veth'
S_SEM_TAP := 'semantics-tap=SEM_PREFIX=xnr tests/integration/semantics.sh --kinds tap --cases $(SEM_TAP_CASES)'
S_INTEGRATION := 'integration=tests/integration/run.sh --only errors,veth,tap,clsact,rollback'
S_CRASH := 'crash=tests/integration/crash.sh'
S_UPGRADE := 'upgrade=tests/integration/upgrade.sh'
S_PROMETHEUS := 'prometheus=tests/integration/prometheus.sh'
S_SHORT := 'trace=tests/integration/trace.sh' 'stats=tests/integration/stats.sh' \
	'filters=tests/integration/filters.sh' 'dump=tests/integration/dump.sh' \
	'bpffs=tests/integration/bpffs.sh' 'vhost=tests/integration/vhost.sh' \
	'nsgone=tests/integration/nsgone.sh'
INTEGRATION_SUITES := $(S_SEM_TAP) $(S_SEM_VETH) $(S_INTEGRATION) $(S_CRASH) \
	$(S_PROMETHEUS) $(S_UPGRADE) $(S_SHORT)

# How many suites run at once (tests/suites.sh -j; docs/testing.md): on
# 2 cores, two left a quarter of the CPU idle where the suites wait for
# timers.
CHECK_JOBS ?= 3
SUITES := tests/suites.sh -j $(CHECK_JOBS)

# The differential fuzzer (tests/fuzz, docs/testing.md): check-fuzz, make
# check's part, runs the regression cases and a fixed set of seeds, each on
# the plain bridge and attached; fuzz runs seeds FUZZ_SEEDS for at most
# FUZZ_TIME seconds, adding to FUZZ_STATE (run it again to go on: a long
# run in parts), and prints the table of everything in FUZZ_STATE.
FUZZ_CHECK_SEEDS ?= 1-10
FUZZ_SEEDS ?= 1-100000
FUZZ_TIME ?= 1500
FUZZ_STATE ?= $(OUT)/fuzz/state.jsonl
.PHONY: check-fuzz fuzz
S_FUZZ := 'fuzz=/usr/bin/python3 tests/fuzz/fuzz.py check $(FUZZ_CHECK_SEEDS) --out $(OUT)/fuzz'
check-fuzz: all
	$(SUITES) $(S_FUZZ)
fuzz: all
	mkdir -p $(dir $(FUZZ_STATE))
	/usr/bin/python3 tests/fuzz/fuzz.py run $(FUZZ_SEEDS) --time $(FUZZ_TIME) \
		--state $(FUZZ_STATE) --out $(OUT)/fuzz

check-integration: all upgrade-builds
	$(SUITES) $(INTEGRATION_SUITES)

# Real guests (root): QEMU VMs on taps through xdpnet (tests/vm/run.sh).
# Installs QEMU (tests/vm/deps.sh) and caches a guest kernel and busybox in
# /var/cache/xdpnet-vm. About 2-3 minutes under TCG on 2 cores.
.PHONY: check-vm
check-vm: deps
	tests/vm/deps.sh
	$(MAKE) $(OUT)/xdpnet
	tests/vm/run.sh

# Debian's own kernels in QEMU guests that run this host's userland over
# 9p (tests/kernels/run.sh): the BPF program tests, the core of the
# integration suite, what xdpnet must do differently there, and
# semantics.sh's VLAN cases. Caches the guest kernels in
# /var/cache/xdpnet-vm. `make check-kernels` runs Debian 12's Linux 6.1
# and Debian 13's 6.12, each with the VLAN cases on veth stand-ins and
# frames through vhost-net (docs/testing.md)
# (KERNELS=trixie for one); check-kernels-full runs the whole matrix.
# `make check` runs only the newest's BPF tests, the part this host cannot
# run (VLAN filtering; CHECK_KERNEL_SUITES, CHECK_KERNEL_PARTS, "" for all
# parts): under TCG on a slower 2-core host the 6.12 guest's core part
# alone took 1,125 s and CI's make check 3,721 s with it. Times under TCG
# on 2 cores: docs/testing.md.
KERNELS ?= bookworm trixie
CHECK_KERNEL_SUITES ?= trixie
CHECK_KERNEL_PARTS ?= bpf
.PHONY: check-kernels check-kernels-full upgrade-builds
# The other builds tests/integration/upgrade.sh upgrades to (it makes them
# itself when missing; the guests find them made).
upgrade-builds:
	$(MAKE) -s OUT=$(OUT)/upgrade/v1 BPF_EXTRA=-DXDPNET_TEST_VARIANT=1 $(OUT)/upgrade/v1/xdpnet
	$(MAKE) -s OUT=$(OUT)/upgrade/fdb BPF_EXTRA=-DXDPNET_TEST_MAX_FDB=8192 $(OUT)/upgrade/fdb/xdpnet

check-kernels: deps
	tests/vm/deps.sh
	$(MAKE) all $(BPF_TESTS) upgrade-builds
	@st=0; for s in $(KERNELS); do \
		echo "== check-kernels: Debian $$s"; \
		XNK_SUITE=$$s XNK_SEM_ARGS=$${XNK_SEM_ARGS:---kinds\ veth} \
			XNK_PARTS="$${XNK_PARTS-$(KERNEL_PARTS)}" \
			tests/kernels/run.sh || st=1; \
	done; exit $$st

# The whole matrix: Debian 12's 6.1 and Debian 13's 6.12, the VLAN cases
# on veth and tap stand-ins, and the kernel's own selftests that build a
# bridge, each plain and with xdpnet attached (tests/kernels/selftests.sh;
# mausezahn from netsniff-ng, arping from iputils-arping). Not part of `make check` (it takes far longer); the
# results per test are in docs/selftests.md.
FULL_KERNELS ?= bookworm trixie
check-kernels-full: deps
	tests/vm/deps.sh
	scripts/deps.sh netsniff-ng iputils-arping
	$(MAKE) all $(BPF_TESTS) upgrade-builds
	@st=0; for s in $(FULL_KERNELS); do \
		echo "== check-kernels-full: Debian $$s"; \
		XNK_SUITE=$$s XNK_SELFTESTS=1 XNK_TIMEOUT=$${XNK_TIMEOUT:-5400} \
			XNK_SHARE_ARGS=$${XNK_SHARE_ARGS:---cases\ tcx,tcxegress,xdpfilter} \
			XNK_SHARE_UPGRADE=1 \
			tests/kernels/run.sh || st=1; \
	done; exit $$st

# The whole suite, as CI runs it (as root): unit, BPF program, integration,
# the benchmark harness's tests and smoke run, real guests (CHECK_VM=0
# skips those), Debian 13's kernel (CHECK_KERNELS=0 skips it). First
# what every suite needs, one thing after the other (packages, builds);
# then the suites, CHECK_JOBS at a time (tests/suites.sh): a line for
# each as it ends, and at the end every suite's line and the total. The
# guests run one after the other in one suite (they share the guest
# cache and each wants both cores). The suites start longest first, so
# that the short ones fill in at the end (started last, the guests ran
# alone for the last 188 s of a run). The benchmark's smoke run goes
# beside the others: its cells' validity (99% of the frames on the fast
# path) no longer counts the frames sent before xdpnet carried the
# generator's tap (with the guests beside it, those took a cell to 98.2%).
# docs/testing.md: times.
TIMED := scripts/timed
GUESTS := $(if $(filter 0,$(CHECK_VM)),echo "check-vm skipped (CHECK_VM=0)";,$(MAKE) -s check-vm || st=1;) \
	$(if $(filter 0,$(CHECK_KERNELS)),echo "check-kernels skipped (CHECK_KERNELS=0)";,$(MAKE) -s check-kernels KERNELS="$(CHECK_KERNEL_SUITES)" KERNEL_PARTS="$(CHECK_KERNEL_PARTS)" || st=1;)
check: deps
	$(TIMED) prepare $(MAKE) check-prepare
	$(SUITES) --logs $(OUT)/check $(S_SEM_VETH) $(S_INTEGRATION) \
		$(S_SEM_TAP) 'guests=st=0; $(GUESTS) exit $$st' \
		$(S_CRASH) 'bench=$(MAKE) -s check-bench' \
		'libvirt=$(MAKE) -s check-libvirt' \
		$(S_PROMETHEUS) $(S_UPGRADE) $(S_FUZZ) \
		'bpf=$(MAKE) -s check-bpf' \
		$(S_SHORT) 'install=$(MAKE) -s check-install' \
		'unit=$(MAKE) -s check-unit'

# What the suites of make check need, installed and built one at a time
# (two suites must never run apt or build the same file at once).
.PHONY: check-prepare
check-prepare: deps
	$(if $(filter 0,$(CHECK_VM)),,tests/vm/deps.sh && tests/libvirt/deps.sh)
	$(MAKE) all $(UNIT_TESTS) $(BPF_TESTS) upgrade-builds

# The inner loop while editing (docs/testing.md: under 5 minutes): unit,
# the BPF program tests and the core of the integration suite.
.PHONY: check-quick
check-quick: deps
	$(MAKE) all $(UNIT_TESTS) $(BPF_TESTS)
	$(SUITES) 'integration-core=tests/integration/run.sh --core' \
		'bpf=$(MAKE) -s check-bpf' 'unit=$(MAKE) -s check-unit'

# The README's two commands, `make demo` and `make check`, each in a root
# that has never seen this project: a debootstrap of Debian 12 (cached in
# /var/cache/xdpnet-fresh), a clean clone of HEAD, /proc, /sys and /dev from
# the host (tests/fresh/run.sh). Not part of `make check`; run it whenever
# an install step changed. A third step, deb (tests/fresh/deb.sh), builds
# the Debian package there with `make deb` (from make dist's tarball,
# lintian --pedantic clean), installs it, attaches to a bridge of its
# own, removes, reinstalls, detaches and purges it, checks that nothing of
# it is left, and runs the package's autopkgtest (debian/tests). A fourth,
# user (tests/fresh/user.sh), builds as a normal user whose PATH lacks
# /usr/sbin. CHECK_FRESH="demo", "check", "deb" or "user" runs one of them
# (it clones HEAD: commit debian/ and tests/ first).
.PHONY: check-fresh
check-fresh:
	scripts/deps.sh debootstrap git
	tests/fresh/run.sh $(CHECK_FRESH)

# The demo, then the quick benchmark (a few minutes; BENCH=0 skips it).
# KEEP=1 leaves the demo's stand-in host up and attached, to look around
# (and runs no benchmark: it would build its own); scripts/demo.sh --down
# removes it.
demo: deps
	$(MAKE) all
	scripts/demo.sh $(if $(filter 1,$(KEEP)),--keep)
	@if [ "$(BENCH)" != 0 ] && [ "$(KEEP)" != 1 ]; then scripts/bench --quick -q; fi

# The binary, its man page, the follower's and the exporter's systemd
# units, the libvirt hooks and bash completion; contrib/ files name the
# binary as @SBINDIR@.
INSTALLED := $(SBINDIR)/xdpnet $(MANDIR)/man8/xdpnet.8 \
	$(UNITDIR)/xdpnet@.service $(UNITDIR)/xdpnet-exporter.service \
	$(LIBVIRT_HOOKDIR)/qemu.d/xdpnet \
	$(LIBVIRT_HOOKDIR)/network.d/xdpnet $(BASHCOMPDIR)/xdpnet
SUBST := sed 's|@SBINDIR@|$(SBINDIR)|g'
# The man page's FILES name the paths of the default install
# (PREFIX=/usr/local); installed, they name this install's.
MANSUBST := sed -e 's|/usr/local/lib/systemd/system/|$(UNITDIR)/|g' \
	-e 's|/usr/local/share/bash-completion/completions/|$(BASHCOMPDIR)/|g' \
	-e 's|/usr/local/sbin/|$(SBINDIR)/|g' \
	-e 's|/etc/libvirt/hooks/|$(LIBVIRT_HOOKDIR)/|g'

install: $(OUT)/xdpnet
	install -D -m 0755 $(OUT)/xdpnet $(DESTDIR)$(SBINDIR)/xdpnet
	install -d $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(LIBVIRT_HOOKDIR)/qemu.d $(DESTDIR)$(LIBVIRT_HOOKDIR)/network.d
	$(MANSUBST) docs/xdpnet.8 > $(DESTDIR)$(MANDIR)/man8/xdpnet.8
	chmod 0644 $(DESTDIR)$(MANDIR)/man8/xdpnet.8
	for u in xdpnet@.service xdpnet-exporter.service; do \
		$(SUBST) contrib/$$u > $(DESTDIR)$(UNITDIR)/$$u && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	for d in qemu.d network.d; do \
		$(SUBST) contrib/libvirt-hook > $(DESTDIR)$(LIBVIRT_HOOKDIR)/$$d/xdpnet && \
		chmod 0755 $(DESTDIR)$(LIBVIRT_HOOKDIR)/$$d/xdpnet || exit 1; \
	done
	install -D -m 0644 contrib/bash-completion $(DESTDIR)$(BASHCOMPDIR)/xdpnet

# Then every folder the files were in that is left empty, and its parents
# that are left empty, up to the prefix's own folders, which stay (the
# FHS's: PREFIX, its bin, sbin, lib, share, share/man and etc, and /etc).
KEEP_DIRS := / /etc /usr $(PREFIX) $(addprefix $(PREFIX)/,bin sbin lib share share/man etc)
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	@for f in $(INSTALLED); do \
		d=$${f%/*}; \
		while [ -n "$$d" ] && ! case " $(KEEP_DIRS) " in *" $$d "*) true ;; *) false ;; esac; do \
			rmdir "$(DESTDIR)$$d" 2>/dev/null || break; \
			echo "rmdir $(DESTDIR)$$d"; \
			d=$${d%/*}; \
		done; \
	done

# make dist: the release tarball, build/xdpnet-VERSION.tar.gz (VERSION is
# include/xdpnet.h's), with everything under xdpnet-VERSION/: the files git
# tracks or would track (uncommitted changes included; without git, every
# file but build/ and results/), without debian/ (the packaging, which
# `make deb` adds beside it), and .git-describe, this tree's git
# description, for a build from the tarball to report. Reproducible: files
# sorted by name, owner root, modes normalised, every time the last
# commit's (without git, the one .git-describe records, else debian/
# changelog's latest entry's), gzip without name or time; the same tree
# gives the same bytes (tests/install/dist.sh).
VERSION := $(shell sed -n 's/^\#define XDPNET_VERSION_STR "\(.*\)"$$/\1/p' include/xdpnet.h)
DIST_NAME := xdpnet-$(VERSION)
DIST := $(OUT)/$(DIST_NAME).tar.gz
DIST_EPOCH = $(shell [ -e .git ] && git log -1 --format=%ct 2>/dev/null || \
	stat -c %Y .git-describe 2>/dev/null || \
	date -d "$$(sed -n 's/^ -- .*>  //p' debian/changelog | head -n 1)" +%s 2>/dev/null)
.PHONY: dist
dist:
	@rm -rf $(OUT)/dist && mkdir -p $(OUT)/dist/$(DIST_NAME)
	@set -e; if [ -e .git ] && command -v git >/dev/null; then \
		git ls-files -co --exclude-standard; \
	else \
		find . -path ./.git -prune -o -path ./$(OUT) -prune -o \
			-path ./results -prune -o \( -type f -o -type l \) -print | sed 's|^\./||'; \
	fi | grep -v -e '^debian/' -e '^\.git-describe$$' | while IFS= read -r f; do \
		if [ -e "$$f" ] || [ -L "$$f" ]; then printf '%s\n' "$$f"; fi; \
	done | tar --no-recursion -cf - -T - | tar -xf - -C $(OUT)/dist/$(DIST_NAME)
	@echo '$(GIT_DESC)' > $(OUT)/dist/$(DIST_NAME)/.git-describe
	@[ -n "$(DIST_EPOCH)" ] || { echo "make dist: no time for the files (no git, .git-describe or debian/changelog)" >&2; exit 1; }
	@cd $(OUT)/dist && find $(DIST_NAME) \( -type f -o -type l \) -print | LC_ALL=C sort | \
		tar --no-recursion --format=gnu --owner=0 --group=0 --numeric-owner \
			--mode='a+rX,u+w,go-w' --mtime=@$(DIST_EPOCH) -cf - -T - | \
		gzip -9n > $(abspath $(DIST)).tmp
	@mv $(DIST).tmp $(DIST) && rm -rf $(OUT)/dist
	@echo "make dist: $(DIST) ($(GIT_DESC))"

# make deb: the Debian package, with Debian's own tooling (debian/:
# debhelper compat 13, source format 3.0 (quilt)), built as a Debian
# maintainer builds it: `make dist`'s tarball becomes the orig tarball
# build/deb/xdpnet_VERSION.orig.tar.gz, unpacked beside it with this
# tree's debian/ added, and `dpkg-buildpackage -us -uc` makes the source
# package (.dsc, .debian.tar.xz) and the binary one from it; then lintian
# --pedantic on all of it, as an unprivileged user (nobody) when run as
# root. Installs what it lacks of the tools (debhelper, dpkg-dev,
# fakeroot, build-essential, lintian, git) and of debian/control's
# Build-Depends through scripts/deps.sh (root then). The work tree is
# never touched. The package ends up as build/xdpnet_VERSION-REV_ARCH.deb
# (VERSION is include/xdpnet.h's, which debian/changelog must match); the
# source package, .buildinfo, .changes and -dbgsym package stay in
# build/deb/. lintian fails it on any tag, info and pedantic ones too, that
# is not overridden (debian/xdpnet.lintian-overrides says why each one
# is). make check-deb
# then checks its contents (tests/install/deb.sh; it installs nothing).
DEB_DIR := $(OUT)/deb
DEB_TOOLS := debhelper dpkg-dev fakeroot build-essential lintian git
DEB_BUILD_DEPS := make clang llvm libbpf-dev libxdp-dev libnl-3-dev \
	libnl-route-3-dev libmicrohttpd-dev bpftool pkg-config systemd
LINTIAN := lintian --pedantic --display-info --fail-on error,warning,info,pedantic
deb:
	scripts/deps.sh $(DEB_TOOLS) $(DEB_BUILD_DEPS)
	@v=$$(sed -n '1s/^xdpnet (\([^)]*\)-[^)-]*).*/\1/p' debian/changelog); \
	if [ -z "$$v" ] || [ "$$v" != "$(VERSION)" ]; then \
		echo "make deb: debian/changelog is at '$$v', include/xdpnet.h at '$(VERSION)'" >&2; \
		exit 1; \
	fi
	$(MAKE) -s dist
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)
	cp $(DIST) $(DEB_DIR)/xdpnet_$(VERSION).orig.tar.gz
	tar -xzf $(DEB_DIR)/xdpnet_$(VERSION).orig.tar.gz -C $(DEB_DIR)
	@set -e; if [ -e .git ] && command -v git >/dev/null; then \
		git ls-files -co --exclude-standard debian; \
	else \
		find debian -type f; \
	fi | tar --no-recursion -cf - -T - | tar -xf - -C $(DEB_DIR)/$(DIST_NAME)
	cd $(DEB_DIR)/$(DIST_NAME) && dpkg-buildpackage -us -uc
	rm -f $(OUT)/xdpnet_*.deb
	cp $(DEB_DIR)/xdpnet_*.deb $(OUT)/
	@set -e; if [ "$$(id -u)" = 0 ]; then \
		t=$$(mktemp -d /tmp/xdpnet-lintian.XXXXXX); \
		cp $(DEB_DIR)/*.changes $(DEB_DIR)/*.dsc $(DEB_DIR)/*.tar.* \
			$(DEB_DIR)/*.deb $(DEB_DIR)/*.buildinfo "$$t"/; \
		chown -R nobody "$$t"; \
		echo "$(LINTIAN) (as nobody)"; \
		(cd "$$t" && runuser -u nobody -- env HOME="$$t" $(LINTIAN) "$$t"/*.changes) || st=$$?; \
		rm -rf "$$t"; exit $${st:-0}; \
	else \
		echo "$(LINTIAN)"; $(LINTIAN) $(DEB_DIR)/*.changes; \
	fi
	@echo "make deb: $$(ls $(OUT)/xdpnet_*.deb)"

# The package's contents and control fields (tests/install/deb.sh; no
# root, installs nothing). Needs `make deb` first.
check-deb:
	tests/install/deb.sh $(OUT)/xdpnet_*.deb

# What `make install` installs, into a scratch DESTDIR (no root needed),
# the bash completion, and make dist's tarball (reproducible).
check-install: $(OUT)/xdpnet
	tests/install/run.sh
	tests/install/completion.sh
	tests/install/dist.sh

# The libvirt hook run as libvirtd runs it (root): with a stub and the real
# xdpnet on taps in a namespace, then under a real libvirtd with a TCG
# domain (tests/libvirt/deps.sh installs libvirtd and QEMU; CHECK_VM=0
# skips that part, as it skips check-vm).
check-libvirt: all
	tests/libvirt/hook.sh
	@if [ "$(CHECK_VM)" != 0 ]; then tests/libvirt/deps.sh && tests/libvirt/live.sh; \
	else echo "tests/libvirt/live.sh skipped (CHECK_VM=0)"; fi

format:
	clang-format -i bpf/*.c bpf/*.h user/*.c $(LIB_SRCS) $(USER_HDRS) \
		include/*.h \
		tests/unit/*.c tests/bpf/*.c tests/bpf/*.h \
		tests/bpf/prog_tests/*.c tests/tools/*.c \
		scripts/bench_tools/*.c scripts/bench_tools/*.h

# Also what a dpkg-buildpackage run in the tree itself leaves in debian/
# (make deb builds in a copy under build/deb instead).
clean:
	rm -rf $(OUT)
	rm -rf debian/xdpnet debian/.debhelper debian/tmp debian/files \
		debian/*.substvars debian/*.debhelper debian/*.debhelper.log \
		debian/debhelper-build-stamp
