# SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
# faultline: CO-RE BPF objects -> one linked object -> skeleton -> loader; the exit mappings'
# program (kfuncs) apart, in an object and a skeleton of its own.

OUTPUT ?= build
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= cc
prefix ?= /usr/local
DESTDIR ?=
# sbin: faultline needs root (BPF, tracefs, other users' /proc), like the tools in /usr/sbin.
sbindir ?= $(prefix)/sbin
mandir ?= $(prefix)/share/man
sysconfdir ?= /etc
unitdir ?= $(prefix)/lib/systemd/system
ARCH := x86
VERSION := 0.1.0

ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.PHONY: all clean test unit integration portability check demo install uninstall vmlinux deps \
	workloads scripts-test unit-sanitize fuzz

# clang's own system include dirs, after ours, so BPF code sees the same <linux/*.h> as libbpf.
CLANG_BPF_SYS_INCLUDES := $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	-Ivmlinux -Ibpf $(CLANG_BPF_SYS_INCLUDES) -MMD -MP
WARN := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wundef
CFLAGS ?= -O2 -g
ALL_CFLAGS := $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -DFAULTLINE_VERSION='"$(VERSION)"' \
	-Ibpf -Iuser -I$(OUTPUT) -MMD -MP
LDLIBS := $(shell pkg-config --libs libbpf libelf zlib capstone ncursesw 2>/dev/null \
	|| echo -lbpf -lelf -lz -lcapstone -lncursesw -ltinfo) -ldw -llzma -ldl -lpthread -lm

BPF_SRCS := $(filter-out bpf/exitmaps.bpf.c,$(wildcard bpf/*.bpf.c))
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
LEGACY_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/legacy/%.bpf.o,$(BPF_SRCS))
SKEL := $(OUTPUT)/faultline.skel.h
EXIT_SKEL := $(OUTPUT)/exitmaps.skel.h
LEGACY_SKEL := $(OUTPUT)/legacy.skel.h

# user/ holds the program (main, session, cli, snapshot, diff) and one folder per stage.
USER_SRCS := $(wildcard user/*.c user/*/*.c)
USER_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(USER_SRCS))
# Every loader module but main.c: what the unit tests link against.
LIB_OBJS := $(filter-out $(OUTPUT)/user/main.o,$(USER_OBJS))

# tests/unit mirrors user/: a folder per stage (and bpf/ for the shared arithmetic)
UNIT_SRCS := $(wildcard tests/unit/*.c tests/unit/*/*.c)
INTEG_SRCS := $(wildcard tests/integration/*.c)
WORKLOAD_SRCS := $(wildcard tests/workloads/*.c)
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUTPUT)/workloads/%,$(WORKLOAD_SRCS))
TEST_CFLAGS := $(CFLAGS) -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -Ibpf -Iuser -Itests -MMD -MP

all: $(OUTPUT)/faultline

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/tests $(OUTPUT)/workloads:
	$(Q)mkdir -p $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/faultline.bpf.o: $(BPF_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(SKEL): $(OUTPUT)/faultline.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name faultline > $@

# The legacy object: the same sources and maps for kernels before 5.17 (bpf/legacy.bpf.h),
# opened through the main skeleton, so their skeletons must declare the same things.
$(OUTPUT)/bpf/legacy/%.bpf.o: bpf/%.bpf.c
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DFL_LEGACY -c $< -o $@

$(OUTPUT)/legacy.bpf.o: $(LEGACY_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(LEGACY_SKEL): $(OUTPUT)/legacy.bpf.o $(SKEL)
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name faultline_legacy > $@.tmp
	$(Q)scripts/skel-same.sh $(SKEL) $@.tmp && mv $@.tmp $@

$(OUTPUT)/exitmaps.bpf.o: $(OUTPUT)/bpf/exitmaps.bpf.o
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(EXIT_SKEL): $(OUTPUT)/exitmaps.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name faultline_exitmaps > $@

# The skeletons come before the probes stage, whose modules include them (through
# tracer_state.h); the .d files then rebuild what a changed skeleton touches.
$(filter $(OUTPUT)/user/probes/%.o,$(USER_OBJS)): | $(SKEL) $(EXIT_SKEL) $(LEGACY_SKEL)

$(OUTPUT)/user/%.o: user/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUTPUT)/faultline: $(USER_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

# Workloads keep frame pointers, but nofp, built as distributions build their packages: its
# stacks are whole only through the unwind tables.
WORKLOAD_CFLAGS := -O1 -g -fno-omit-frame-pointer -fno-inline
$(OUTPUT)/workloads/nofp $(OUTPUT)/workloads/faultbench_nofp $(OUTPUT)/workloads/manylibs: \
	WORKLOAD_CFLAGS := -O2 -g -fomit-frame-pointer
$(OUTPUT)/workloads/faultbench_nofp: tests/workloads/faultbench.c
$(OUTPUT)/workloads/%: tests/workloads/%.c tests/workloads/workload.h | $(OUTPUT)/workloads
	$(call msg,WORKLOAD,$@)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -Wall -Werror -pthread $< -o $@

# Libraries the workloads load (tests/workloads/lib), built as distributions build theirs
WORKLOAD_LIBS := $(patsubst tests/workloads/lib/%.c,$(OUTPUT)/workloads/lib%.so, \
	$(wildcard tests/workloads/lib/*.c))
$(OUTPUT)/workloads/lib%.so: tests/workloads/lib/%.c | $(OUTPUT)/workloads
	$(call msg,LIB,$@)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fPIC -shared -Wall -Werror $< -o $@

workloads: $(WORKLOADS) $(WORKLOAD_LIBS)

$(OUTPUT)/tests/unit: $(UNIT_SRCS) $(LIB_OBJS) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(TEST_CFLAGS) $(UNIT_SRCS) $(LIB_OBJS) $(LDLIBS) -lcriterion -lm -o $@

# what a window costs --otlp (scripts/bench-ship.sh)
$(OUTPUT)/tests/shipbench: tests/bench/shipbench.c $(LIB_OBJS) | $(OUTPUT)/tests
	$(call msg,BENCH,$@)
	$(Q)$(CC) $(TEST_CFLAGS) $< $(LIB_OBJS) $(LDLIBS) -o $@

# the integration tests read faultline's JSON with its own reader (and its UTF-8 check)
INTEG_READER := user/formats/jsonread.c user/base/units.c
$(OUTPUT)/tests/integration: $(INTEG_SRCS) $(INTEG_READER) | $(OUTPUT)/tests
	$(call msg,TEST,$@)
	$(Q)$(CC) $(TEST_CFLAGS) $(INTEG_SRCS) $(INTEG_READER) -lcriterion -lutil -lz -lpthread -o $@

# The library objects and the unit tests again under AddressSanitizer and UBSan, apart in
# $(SAN_OUT); tests/sanitized.sh fails on any report (leaks included). clang: gcc 12's UBSan
# ignores log_path beside ASan, and a test that redirects stderr would hide its report.
SAN_OUT := $(OUTPUT)/asan
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SAN_OBJS := $(patsubst $(OUTPUT)/user/%.o,$(SAN_OUT)/user/%.o,$(LIB_OBJS))
# The runtime as a shared library: linked in statically, it makes the test binary define
# malloc, and the allocator tests rightly find an allocator in /proc/self/exe.
SAN_RT_DIR = $(dir $(shell $(CLANG) -print-file-name=libclang_rt.asan-x86_64.so))
SAN_LDFLAGS = -shared-libsan -Wl,-rpath,$(SAN_RT_DIR)

$(SAN_OUT)/user/%.o: user/%.c
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(ALL_CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(SAN_OUT)/user/probes/attach.o $(SAN_OUT)/user/probes/allocprobes.o $(SAN_OUT)/user/probes/scope.o: $(SKEL)
$(SAN_OUT)/user/probes/exitprobe.o: $(EXIT_SKEL)

# faultline itself so built, to run the integration tests against (FAULTLINE=...)
$(SAN_OUT)/faultline: $(SAN_OUT)/user/main.o $(SAN_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CLANG) $(SAN_FLAGS) $(SAN_LDFLAGS) $^ $(LDLIBS) -o $@

$(SAN_OUT)/tests/unit: $(UNIT_SRCS) $(SAN_OBJS)
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(TEST_CFLAGS) $(SAN_FLAGS) $(SAN_LDFLAGS) $(UNIT_SRCS) $(SAN_OBJS) $(LDLIBS) \
		-lcriterion -lm -o $@

# libFuzzer targets, one per tests/fuzz/fuzz_NAME.c, against the readers built with clang's
# coverage, ASan and UBSan in $(FUZZ_OUT); `make fuzz` runs each for FUZZ_SECONDS on its seeds
# (tests/fuzz/corpus/NAME) and reports how many inputs it ran.
FUZZ_OUT := $(OUTPUT)/fuzz
FUZZ_SECONDS ?= 20
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(FUZZ_OUT)/%,$(FUZZ_SRCS))
# what the targets read with: the stages without BPF or a terminal, and the diff
FUZZ_LIB_SRCS := $(wildcard user/base/*.c user/model/*.c user/symbols/*.c user/formats/*.c) \
	user/diff.c user/diffargs.c
FUZZ_LIB_OBJS := $(patsubst user/%.c,$(FUZZ_OUT)/user/%.o,$(FUZZ_LIB_SRCS))

$(FUZZ_OUT)/user/%.o: user/%.c
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(ALL_CFLAGS) $(SAN_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_OUT)/libreaders.a: $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OUT)/libreaders.a
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(TEST_CFLAGS) $(SAN_FLAGS) -fsanitize=fuzzer $< $(FUZZ_OUT)/libreaders.a \
		$(LDLIBS) -o $@

deps:
	$(Q)scripts/deps.sh

unit: $(OUTPUT)/tests/unit
	$(Q)cd tests/unit && ../../$(OUTPUT)/tests/unit --jobs 2

fuzz: $(FUZZ_BINS)
	$(Q)tests/fuzz/run.sh $(FUZZ_OUT) $(FUZZ_SECONDS)

unit-sanitize: $(SAN_OUT)/tests/unit
	$(Q)cd tests/unit && ../sanitized.sh $(abspath $(SAN_OUT))/reports \
		$(abspath $(SAN_OUT))/tests/unit --jobs 2

# The OTLP tests' collector is built once and cached (tests/otelcol/build.sh); with no Go
# toolchain (exit 77) those tests are skipped and say why.
integration: $(OUTPUT)/faultline $(WORKLOADS) $(OUTPUT)/tests/integration
	@echo "integration: the test collector: cached, or built once (a few minutes)"
	$(Q)rc=0; otelcol=$$(tests/otelcol/build.sh 2>$(OUTPUT)/otelcol-build.log) || rc=$$?; \
	if [ $$rc -ne 0 ] && [ $$rc -ne 77 ]; then \
		cat $(OUTPUT)/otelcol-build.log >&2; \
		echo "integration: building the test collector (tests/otelcol) failed" >&2; exit 1; \
	fi; \
	OTELCOL="$$otelcol" OTELCOL_SKIP="$$(cat $(OUTPUT)/otelcol-build.log)" \
	OTELCOL_DIR=$(abspath tests/otelcol) \
	FAULTLINE=$(abspath $(OUTPUT)/faultline) WORKLOADS=$(abspath $(OUTPUT)/workloads) \
		$(OUTPUT)/tests/integration --jobs 1

# Debian's 6.1, 6.12 and 5.10 kernels in VMs, one after another (VM_KERNEL=6.12: that one alone)
portability: $(OUTPUT)/faultline $(WORKLOADS)
	$(Q)tests/portability.sh $(OUTPUT) $(VM_KERNEL)

# No root, no BPF: the layering of user/, the man page against --help, make install into a
# scratch DESTDIR, faultline diff on files made by the test, and the scripts make demo and
# make unit-sanitize run, on stand-ins.
scripts-test: $(OUTPUT)/faultline
	$(Q)tests/layers.sh
	$(Q)tests/man.sh $(OUTPUT)
	$(Q)tests/install.sh $(OUTPUT)
	$(Q)tests/diff.sh $(OUTPUT)
	$(Q)tests/script_demo.sh
	$(Q)tests/script_sanitized.sh

# The README's test command: installs what is missing, builds, runs every test.
test: deps
	$(Q)$(MAKE) --no-print-directory all workloads $(OUTPUT)/tests/unit $(OUTPUT)/tests/integration
	$(Q)$(MAKE) --no-print-directory unit
	$(Q)$(MAKE) --no-print-directory unit-sanitize
	$(Q)$(MAKE) --no-print-directory fuzz
	$(Q)$(MAKE) --no-print-directory scripts-test
	$(Q)$(MAKE) --no-print-directory integration
	$(Q)$(MAKE) --no-print-directory portability

# The README's first command: builds, then profiles the bundled demo workload for a few seconds.
demo: deps
	$(Q)$(MAKE) --no-print-directory all workloads
	$(Q)scripts/demo.sh $(OUTPUT)

check: $(OUTPUT)/faultline
	$(Q)tests/layers.sh
	$(Q)tests/man.sh $(OUTPUT)
	$(Q)clang-format --dry-run -Werror bpf/*.h bpf/*.bpf.c $(USER_SRCS) $(wildcard user/*.h user/*/*.h)

vmlinux:
	$(call msg,GEN,vmlinux/vmlinux.h)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/vmlinux.h.tmp
	$(Q){ echo "/* generated by 'make vmlinux' from the BTF of Linux $$(uname -r) */"; \
		cat vmlinux/vmlinux.h.tmp; } > vmlinux/vmlinux.h && rm -f vmlinux/vmlinux.h.tmp

install: $(OUTPUT)/faultline
	$(call msg,INSTALL,$(DESTDIR)$(sbindir)/faultline)
	$(Q)install -D -m 0755 $(OUTPUT)/faultline $(DESTDIR)$(sbindir)/faultline
	$(call msg,INSTALL,$(DESTDIR)$(mandir)/man8/faultline.8)
	$(Q)install -D -m 0644 docs/faultline.8 $(DESTDIR)$(mandir)/man8/faultline.8
	$(call msg,INSTALL,$(DESTDIR)$(unitdir)/faultline.service)
	$(Q)mkdir -p $(DESTDIR)$(unitdir)
	$(Q)sed 's|@SBINDIR@|$(sbindir)|g; s|@SYSCONFDIR@|$(sysconfdir)|g' \
		scripts/systemd/faultline.service > $(DESTDIR)$(unitdir)/faultline.service
	$(Q)chmod 0644 $(DESTDIR)$(unitdir)/faultline.service
	@# the options are the administrator's once there: never overwritten
	$(Q)[ -e $(DESTDIR)$(sysconfdir)/default/faultline ] || \
		install -D -m 0644 scripts/systemd/faultline.default \
			$(DESTDIR)$(sysconfdir)/default/faultline

uninstall:
	$(call msg,RM,$(DESTDIR)$(sbindir)/faultline)
	$(Q)rm -f $(DESTDIR)$(sbindir)/faultline
	$(call msg,RM,$(DESTDIR)$(mandir)/man8/faultline.8)
	$(Q)rm -f $(DESTDIR)$(mandir)/man8/faultline.8
	$(call msg,RM,$(DESTDIR)$(unitdir)/faultline.service)
	$(Q)rm -f $(DESTDIR)$(unitdir)/faultline.service

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT)

-include $(wildcard $(OUTPUT)/bpf/*.d $(OUTPUT)/bpf/legacy/*.d $(OUTPUT)/user/*.d $(OUTPUT)/user/*/*.d $(OUTPUT)/tests/*.d \
	$(SAN_OUT)/user/*.d $(SAN_OUT)/user/*/*.d $(FUZZ_OUT)/user/*.d $(FUZZ_OUT)/user/*/*.d \
	$(FUZZ_OUT)/*.d)
