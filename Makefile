# SPDX-License-Identifier: GPL-2.0
#
# Build, test and export the embedded flash/power/boot/memory series for
# Linux 6.1.  "make help" lists the targets; README.md explains them.

TOP	:= $(CURDIR)
BUILD	:= $(TOP)/build
OUT	:= $(TOP)/out
TREE	:= $(BUILD)/linux
H	:= $(TOP)/harness
ARCH	?= x86_64
JOBS	?= $(shell nproc)
KERNEL_SRC ?=

# Persistent compiler cache outside the clone, shared by every build here.
# Object directories live inside the source tree they build (build/linux/.obj-*,
# ignored by the kernel's .gitignore), so Kbuild uses the relative srctree
# "..": the compiler sees the same paths in every tree and every clone, and
# the base tree of offcheck and a fresh CI clone hit the cache.
export CCACHE_DIR ?= $(HOME)/.cache/ccache
export CCACHE_MAXSIZE ?= 5G
export JOBS

BUSYBOX_x86_64	:= /bin/busybox
BUSYBOX_arm	:= $(BUILD)/dl/busybox-armhf/bin/busybox
CROSS_x86_64	:=
CROSS_arm	:= arm-linux-gnueabihf-
IMAGE_x86_64	:= arch/x86/boot/bzImage
# The virtio-rng device of the make qemu-test guests (configs/qemu-test-*)
RNGDEV_x86_64	:= virtio-rng-pci
RNGDEV_arm	:= virtio-rng-device
# The named devices of the make qemu-test guests, which boot with every
# probe delayed by a random time (selftests/parallel_probe/names.sh): on
# x86_64 four PCI serial ports, two virtio input devices and eight virtio
# disks at fixed PCI addresses; on ARM the virtio devices on virtio-mmio,
# modern (virtio-input has no legacy interface).
QEMU_TEST_APPEND := nandsim.id_bytes=0xec,0xd3,0x51,0x95 parallel_probe.jitter_us=20000
NAMESBLK_x86_64	:= virtio-blk-pci
NAMESBLK_arm	:= virtio-blk-device
NAMESDEV_x86_64	:= $(foreach i,0 1 2 3,-chardev null,id=ns$(i) \
		     -device pci-serial,chardev=ns$(i),addr=0x1$(i)) \
		   -device virtio-keyboard-pci,addr=0x14 \
		   -device virtio-mouse-pci,addr=0x15
NAMESDEV_arm	:= -global virtio-mmio.force-legacy=false \
		   -device virtio-keyboard-device -device virtio-mouse-device
NAMESDEV	= $(NAMESDEV_$(ARCH)) $(foreach i,8 9 a b c d e f,-blockdev \
		  driver=null-co,node-name=nd$(i),size=1048576,read-zeroes=on \
		  -device $(NAMESBLK_$(ARCH)),drive=nd$(i)$(if \
		  $(filter x86_64,$(ARCH)),$(comma)addr=0x1$(i)))
comma		:= ,
# what names.sh must find of each class
NAMES_EXPECT_x86_64 := block=8 virtio=10 serial=4 input=2 event=2
NAMES_EXPECT_arm := block=8 virtio=10 input=2 event=2
IMAGE_arm	:= arch/arm/boot/zImage
KARCH_x86_64	:= x86_64
KARCH_arm	:= arm

TEST_FRAGS	= $(H)/configs/$(ARCH).config $(H)/configs/qemu-test.config \
		  $(H)/configs/qemu-test-$(ARCH).config \
		  $(H)/configs/series.config $(H)/configs/test-modules.config
OBJ		= $(TREE)/.obj-$(ARCH)-test
KSFT		= $(BUILD)/ksft-$(ARCH)/install
KSFT_TARGETS	?= flash wakeups sffs parallel_probe slob_seg

# The kselftest targets' results, the KUnit run and the rest each leave a
# "<name>: N passed, N failed" line in $(OUT)/results/; "make test" sums them.
RESULTS	:= $(OUT)/results

.PHONY: all demo help deps tree series check kunit stress stress-cuts stress-cuts-build stress-cuts-run kernel ksft qemu-test qemu-test-4k module-test \
	root-test overlay-test checkpatch am-check offcheck bisect-check test clean distclean \
	harness-test tools-test bench-flash bench-size bench-aging bench-probe bench-probe-names bench-slab bench-idle bench-idle-cost figures

all: demo

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## make / make demo   build a stock and a series x86_64 kernel, configured alike
##                    but for the series' options, boot both and show each
##                    part's stock figure, series figure and target
demo: tree
	@$(H)/demo.sh $(TREE) $(BUILD) $(OUT)/demo "$(KSFT_TARGETS)"

## make deps          install build and test dependencies (Debian 12)
deps:
	@$(H)/deps.sh $(BUILD)/dl

## make check         validate series.manifest against the repository
check:
	@python3 $(H)/series.py check

## make tree          base tree in build/linux with the series applied
tree: deps check
	@$(H)/base-tree.sh $(TREE) $(KERNEL_SRC)
	@python3 $(H)/series.py apply $(TREE)

## make series        write out/series/NNNN-*.patch and out/series/series
series: tree
	@python3 $(H)/series.py export $(TREE) $(OUT)/series

## make kunit         every KUnit suite of the series on UML (lockdep, KASAN, UBSAN),
##                    then all of them again on the segregated-fit SLOB; and
##                    that each SFFS object calls only the layers below it
##                    (harness/sffs-layers.py, on the first kernel's objects)
KUNITCONFIGS = $(shell cd $(TOP) && git ls-files -co --exclude-standard -- \
		'*/.kunitconfig' | grep -v '^harness/')
# KASAN and the SLUB tests need SLUB: the second kernel has the rest of
# harness/kunit/.kunitconfig and SLOB_SEG with its red zones instead.
kunit: tree
	@mkdir -p $(RESULTS)
	@grep -v -e KASAN -e SLUB $(H)/kunit/.kunitconfig \
		> $(BUILD)/kunit-slob-seg.kunitconfig
	@$(H)/kunit.sh $(TREE) $(TREE)/.kunit $(RESULTS)/kunit-main \
		$(H)/kunit/.kunitconfig $(KUNITCONFIGS); \
	$(H)/kunit.sh $(TREE) $(TREE)/.kunit-slob-seg $(RESULTS)/kunit-slob-seg \
		$(BUILD)/kunit-slob-seg.kunitconfig $(KUNITCONFIGS) \
		mm/slob_seg.kunitconfig; \
	if $(H)/sffs-layers.py $(TREE)/fs/sffs $(TREE)/.kunit/fs/sffs >&2; then \
		echo "sffs-layers: 1 passed, 0 failed, 0 skipped"; \
	else echo "sffs-layers: 0 passed, 1 failed, 0 skipped"; fi \
		> $(RESULTS)/kunit-layers; \
	cat $(RESULTS)/kunit-main $(RESULTS)/kunit-slob-seg \
		$(RESULTS)/kunit-layers | awk \
		'{ p += $$2; f += $$4; s += $$6; n++ } END { if (n != 3) f++; \
		print "kunit: " p " passed, " f " failed, " s " skipped"; \
		exit f > 0 }' | \
		tee $(RESULTS)/kunit; exit $${PIPESTATUS[1]}

# $(call mtdcount,OBJ,ARCH): OBJ/mtdcount/mtdcount.ko, the MTD pass-through
# of harness/bench/mtdcount, for the kernel built in OBJ: the sffs
# kselftest cuts the power with it, make stress-cuts syncs with it.
mtdcount = mkdir -p $(1)/mtdcount && \
	cp $(H)/bench/mtdcount/Kbuild $(H)/bench/mtdcount/mtdcount.c $(1)/mtdcount/ && \
	$(MAKE) -s -C $(TREE) O=$(1) M=$(1)/mtdcount ARCH=$(KARCH_$(2)) \
		CROSS_COMPILE=$(CROSS_$(2)) CC="ccache $(CROSS_$(2))gcc" modules

## make kernel ARCH=  the QEMU test kernel (tiny + tests + series options)
##                    and mtdcount.ko for it
kernel: tree
	$(H)/kbuild.sh $(ARCH) $(TREE) $(OBJ) $(TEST_FRAGS)
	@$(call mtdcount,$(OBJ),$(ARCH))

## make ksft ARCH=    the in-guest kselftests, static, installed for the guest
ksft: tree
	$(H)/ksft.sh $(ARCH) $(TREE) $(BUILD)/ksft-$(ARCH) "$(KSFT_TARGETS)"

# The test modules of the parallel_probe kselftest, next to it in the guest;
# the fw_devlink one needs a device tree
PPROBE_MODS_arm	:= parallel_probe_fwlink
PPROBE_MODS	= $(foreach m,parallel_probe_modload parallel_probe_modload_dep \
		  $(PPROBE_MODS_$(ARCH)), --payload \
		  $(OBJ)/drivers/base/test/$(m).ko:parallel_probe/$(m).ko)

# KUnit and the SLOB_SEG suites, for the slob_seg kselftest: 2 vCPUs
SLOB_SEG_MODS	= --payload $(OBJ)/lib/kunit/kunit.ko:slob_seg/kunit.ko \
		  --payload $(OBJ)/mm/slob_seg_test.ko:slob_seg/slob_seg_test.ko

## make qemu-test ARCH=x86_64|arm   boot the test kernel, run the kselftests
##                    (the sffs test's image to flash is made on the host)
qemu-test: kernel ksft
	@mkdir -p $(RESULTS) $(BUILD)/tools-sffs
	@$(MAKE) -s -C $(TREE)/tools/sffs OUTPUT=$(BUILD)/tools-sffs/
	@$(H)/place-image.sh $(BUILD)/tools-sffs $(ARCH) $(BUILD)/place-$(ARCH)
	$(H)/qemu-run --arch $(ARCH) --kernel $(OBJ)/$(IMAGE_$(ARCH)) \
		--busybox $(BUSYBOX_$(ARCH)) --name qemu-test-$(ARCH) \
		--workdir $(OUT)/qemu-test-$(ARCH) --payload $(KSFT) \
		--payload $(OBJ)/mtdcount/mtdcount.ko:sffs/mtdcount.ko \
		--payload $(BUILD)/place-$(ARCH):sffs/place \
		$(PPROBE_MODS) $(SLOB_SEG_MODS) \
		--qemu-arg=-device --qemu-arg=$(RNGDEV_$(ARCH)) \
		$(addprefix --qemu-arg=,$(NAMESDEV)) \
		--append "$(QEMU_TEST_APPEND)" --mem 768 --timeout 900 \
		--run 'NAMES_EXPECT="$(NAMES_EXPECT_$(ARCH))" ./run_kselftest.sh' \
		| tee $(OUT)/qemu-test-$(ARCH).txt; \
	rc=$${PIPESTATUS[0]}; \
	tail -n 1 $(OUT)/qemu-test-$(ARCH).txt | \
		sed 's/^/qemu-test-$(ARCH): /' > $(RESULTS)/qemu-test-$(ARCH); \
	exit $$rc

## make qemu-test-4k ARCH=x86_64|arm   the sffs kselftest again on a NAND
##                    with 4 KiB pages and 256 KiB erase blocks
qemu-test-4k: kernel ksft
	@mkdir -p $(RESULTS)
	$(H)/qemu-run --arch $(ARCH) --kernel $(OBJ)/$(IMAGE_$(ARCH)) \
		--busybox $(BUSYBOX_$(ARCH)) --name qemu-test-4k-$(ARCH) \
		--workdir $(OUT)/qemu-test-4k-$(ARCH) --payload $(KSFT) \
		--payload $(OBJ)/mtdcount/mtdcount.ko:sffs/mtdcount.ko \
		--append "nandsim.id_bytes=0xec,0xd3,0x51,0xa6" \
		--mem 768 --timeout 900 --run './run_kselftest.sh -c sffs' \
		| tee $(OUT)/qemu-test-4k-$(ARCH).txt; \
	rc=$${PIPESTATUS[0]}; \
	tail -n 1 $(OUT)/qemu-test-4k-$(ARCH).txt | \
		sed 's/^/qemu-test-4k-$(ARCH): /' > $(RESULTS)/qemu-test-4k-$(ARCH); \
	exit $$rc

## make root-test ARCH=x86_64|arm   SFFS as the root file system: the test
##                    kernel boots with no initramfs from an image made by
##                    mkfs.sffs -r, on a flash backed by a file (ARM: CFI NOR;
##                    x86_64: block2mtd on virtio-blk), with root=mtd:NAME and
##                    then root=mtdN; / must be SFFS, writable, and keep what
##                    the first boot wrote (harness/root-test.sh)
root-test: kernel
	@mkdir -p $(RESULTS) $(BUILD)/tools-sffs
	@$(MAKE) -s -C $(TREE)/tools/sffs OUTPUT=$(BUILD)/tools-sffs/
	$(H)/root-test.sh $(ARCH) $(OBJ)/$(IMAGE_$(ARCH)) $(BUSYBOX_$(ARCH)) \
		$(BUILD)/tools-sffs $(OUT) | tee $(OUT)/root-test-$(ARCH).txt; \
	rc=$${PIPESTATUS[0]}; \
	tail -n 1 $(OUT)/root-test-$(ARCH).txt | \
		sed 's/^/root-test-$(ARCH): /' > $(RESULTS)/root-test-$(ARCH); \
	exit $$rc

## make overlay-test ARCH=x86_64|arm   SFFS as overlayfs's upper layer, booted
##                    as OpenWrt boots: a squashfs root (ARM: a partition of
##                    the CFI NOR through mtdblock; x86_64: a virtio disk
##                    partition), SFFS on the MTD partition "rootfs_data" as
##                    the overlay; four boots change, check, power-cut and
##                    factory-reset it (harness/overlay-test.sh)
GUEST_TOOLS	= $(BUILD)/tools-sffs-$(ARCH)-guest
overlay-test: kernel
	@mkdir -p $(RESULTS) $(BUILD)/tools-sffs $(GUEST_TOOLS)
	@$(MAKE) -s -C $(TREE)/tools/sffs OUTPUT=$(BUILD)/tools-sffs/
	@$(MAKE) -s -C $(TREE)/tools/sffs OUTPUT=$(GUEST_TOOLS)/ \
		CC=$(CROSS_$(ARCH))gcc LDFLAGS=-static $(GUEST_TOOLS)/mkfs.sffs
	$(H)/overlay-test.sh $(ARCH) $(OBJ)/$(IMAGE_$(ARCH)) $(BUSYBOX_$(ARCH)) \
		$(BUILD)/tools-sffs $(GUEST_TOOLS)/mkfs.sffs $(OUT) | \
		tee $(OUT)/overlay-test-$(ARCH).txt; \
	rc=$${PIPESTATUS[0]}; \
	tail -n 1 $(OUT)/overlay-test-$(ARCH).txt | \
		sed 's/^/overlay-test-$(ARCH): /' > $(RESULTS)/overlay-test-$(ARCH); \
	exit $$rc

## make module-test   SFFS as a module on x86_64: insmod, the sffs kselftest, rmmod
MOBJ		= $(TREE)/.obj-x86_64-module
module-test: tree
	@mkdir -p $(RESULTS)
	$(H)/kbuild.sh x86_64 $(TREE) $(MOBJ) $(H)/configs/x86_64.config \
		$(H)/configs/qemu-test.config $(H)/configs/module.config
	@$(call mtdcount,$(MOBJ),x86_64)
	@$(MAKE) --no-print-directory ksft ARCH=x86_64
	$(H)/qemu-run --arch x86_64 --kernel $(MOBJ)/$(IMAGE_x86_64) \
		--busybox $(BUSYBOX_x86_64) --name module-test \
		--workdir $(OUT)/module-test --payload $(BUILD)/ksft-x86_64/install \
		--payload $(MOBJ)/fs/sffs/sffs.ko:sffs.ko \
		--payload $(MOBJ)/mtdcount/mtdcount.ko:sffs/mtdcount.ko \
		--append "nandsim.id_bytes=0xec,0xd3,0x51,0x95" --mem 768 --timeout 900 \
		--run 'insmod ./sffs.ko && ./run_kselftest.sh -c sffs; \
		       if rmmod sffs; then echo "ok 1 rmmod sffs"; \
		       else echo "not ok 1 rmmod sffs"; fi' \
		| tee $(OUT)/module-test.txt; \
	rc=$${PIPESTATUS[0]}; \
	tail -n 1 $(OUT)/module-test.txt | \
		sed 's/^/module-test: /' > $(RESULTS)/module-test; \
	exit $$rc

## make harness-test  unit tests of the harness (console parser, qemu-run's
##                    power cut, series tool, bench RAM fit, aging report,
##                    deps.sh retries, skips counted apart by kunit.sh,
##                    series.py staging a file later patches extend,
##                    sffs-layers.py, qemu-run and test-all.sh, README's status table
##                    as readme-status.py makes it)
harness-test:
	@mkdir -p $(RESULTS)
	python3 $(H)/test_harness.py $(RESULTS)/harness-test

## make figures       the tables of every benchmark that left its Markdown in
##                    out/bench into its document (harness/bench/*-rst.py),
##                    then README.md's status table from those documents
##                    (harness/readme-status.py); the bench targets do not
##                    touch the committed files, this does
DOC	:= $(TOP)/Documentation
figures:
	@set -e; b=$(OUT)/bench; \
	if [ -f $$b/flash.md ]; then python3 $(H)/bench/flash-rst.py \
		$$b/flash.md $(DOC)/filesystems/sffs.rst; fi; \
	if [ -f $$b/aging.md ]; then python3 $(H)/bench/aging-rst.py \
		$$b/aging.md $(DOC)/filesystems/sffs.rst; fi; \
	if [ -f $$b/idle.md ]; then cost=-; \
		if [ -f $$b/idle-cost.md ]; then cost=$$b/idle-cost.md; fi; \
		python3 $(H)/bench/idle-rst.py $$b/idle.md $$cost \
		$(DOC)/timers/wakeup-reduce.rst; fi; \
	if [ -f $$b/probe.md ]; then python3 $(H)/bench/probe-rst.py \
		$$b/probe.md $(DOC)/driver-api/parallel-probe.rst; fi; \
	if [ -f $$b/probe-names.md ]; then python3 $(H)/bench/probe-rst.py \
		$$b/probe-names.md $(DOC)/driver-api/parallel-probe.rst names; fi; \
	if [ -f $$b/slab.md ]; then python3 $(H)/bench/slab-rst.py \
		$$b/slab.md $(DOC)/mm/slob-seg.rst; fi; \
	if [ -f $$b/size.md ]; then python3 $(H)/bench/size-rst.py \
		$$b/size.md $(DOC)/kbuild/footprint.rst; fi
	python3 $(H)/readme-status.py $(TOP)

## make bench-slab    SLAB, SLUB, SLOB and SLOB_SEG on small x86_64 and ARM guests
bench-slab: tree
	@$(H)/bench-slab.sh $(TREE) $(OUT)/bench

## make bench-size    kernel footprint: tinyconfig, stock 6.1 against the
##                    footprint options, and what each part of the series
##                    costs, on x86_64 and ARM (BENCH_ARCHES, BENCH_SIZE_PARTS,
##                    BENCH_ROUNDS: harness/bench-size.sh)
bench-size: tree
	@$(H)/worktree.sh $(TREE) $(BUILD)/base-wt
	@git -C $(BUILD)/base-wt checkout -q --detach base
	@$(H)/bench-size.sh $(TREE) $(BUILD)/base-wt $(OUT)/bench

## make bench-flash   SFFS against UBIFS (+fastmap) and JFFS2 (+summary) on
##                    256 MiB, 1 GiB, 4 GiB and 16 GiB nandsim, a reduced set
##                    on ARM, 3 runs (BENCH_SIZES, BENCH_FILLS, BENCH_RUNS,
##                    BENCH_ARM_SIZES, BENCH_RESUME: harness/bench-flash.sh)
FOBJ		= $(TREE)/.obj-x86_64-bflash
FOBJ_SUM	= $(TREE)/.obj-x86_64-bflash-sum
FFRAGS		= $(H)/configs/x86_64.config $(H)/configs/qemu-test.config \
		  $(H)/configs/series.config $(H)/configs/bench-flash.config
AFOBJ		= $(TREE)/.obj-arm-bflash
bench-flash: tree
	@$(MAKE) --no-print-directory ksft ARCH=x86_64
	@$(MAKE) --no-print-directory ksft ARCH=arm
	$(H)/kbuild.sh x86_64 $(TREE) $(FOBJ) $(FFRAGS)
	$(H)/kbuild.sh x86_64 $(TREE) $(FOBJ_SUM) $(FFRAGS) \
		$(H)/configs/bench-flash-sum.config
	$(H)/kbuild.sh arm $(TREE) $(AFOBJ) $(H)/configs/arm.config \
		$(H)/configs/qemu-test.config $(H)/configs/series.config \
		$(H)/configs/bench-flash.config
	@$(H)/bench-flash.sh $(TREE) $(FOBJ) $(FOBJ_SUM) \
		$(BUILD)/ksft-x86_64/install $(OUT)/bench $(AFOBJ) \
		$(BUILD)/ksft-arm/install $(BUSYBOX_arm)

## make bench-aging   SFFS, UBIFS and JFFS2 aged on 1, 4 and (if the host has
##                    the memory) 16 GiB nandsim: filled to 90%, then fsync'd
##                    overwrites and file replacements until the device was
##                    written 5 times over; throughput, fsync latency, write
##                    amplification, wear, mounts and RAM of the aged file
##                    systems, 3 runs (BENCH_AGING_SIZES, BENCH_AGING_TIMES,
##                    BENCH_RUNS, BENCH_RESUME: harness/bench-aging.sh)
bench-aging: tree
	@$(MAKE) --no-print-directory ksft ARCH=x86_64
	$(H)/kbuild.sh x86_64 $(TREE) $(FOBJ) $(FFRAGS)
	@$(H)/bench-aging.sh $(TREE) $(FOBJ) $(BUILD)/ksft-x86_64/install \
		$(OUT)/bench

## make bench-probe ARCH=x86_64|arm   device probing in QEMU: synchronous,
##                    driver_async_probe=*, the series, and the series with
##                    the benchmark's drivers ordered, on the benchmark
##                    module's graph; boot to /init against the stock kernel
##                    (the two kernels differ only by CONFIG_DRIVER_PARALLEL_PROBE)
BOBJ		= $(TREE)/.obj-$(ARCH)-bench
SOBJ		= $(BUILD)/base-wt/.obj-$(ARCH)-stock
bench-probe: tree
	$(H)/kbuild.sh $(ARCH) $(TREE) $(BOBJ) $(H)/configs/$(ARCH).config \
		$(H)/configs/qemu-test.config $(H)/configs/bench-probe.config
	$(H)/worktree.sh $(TREE) $(BUILD)/base-wt
	git -C $(BUILD)/base-wt checkout -q --detach base
	$(H)/kbuild.sh $(ARCH) $(BUILD)/base-wt $(SOBJ) \
		$(H)/configs/$(ARCH).config $(H)/configs/qemu-test.config \
		$(H)/configs/bench-probe-stock.config
	$(H)/bench-probe.sh $(ARCH) $(BOBJ)/$(IMAGE_$(ARCH)) \
		$(SOBJ)/$(IMAGE_$(ARCH)) \
		$(BOBJ)/drivers/base/test/parallel_probe_bench.ko \
		$(BUSYBOX_$(ARCH)) $(OUT)/bench

## make bench-probe-names ARCH=x86_64|arm   name stability: a guest with
##                    virtio disks, network and input devices (and PCI serial
##                    ports on x86_64) loads their drivers as modules with
##                    every probe jittered, 50 boots each synchronous,
##                    driver_async_probe=* and the series
NOBJ		= $(TREE)/.obj-$(ARCH)-names
bench-probe-names: tree
	$(H)/kbuild.sh $(ARCH) $(TREE) $(NOBJ) $(H)/configs/$(ARCH).config \
		$(H)/configs/qemu-test.config $(H)/configs/bench-probe-names.config \
		$(H)/configs/bench-probe-names-$(ARCH).config
	@$(MAKE) --no-print-directory ksft ARCH=$(ARCH)
	$(H)/bench-probe-names.sh $(ARCH) $(NOBJ) $(KSFT) $(BUSYBOX_$(ARCH)) \
		$(OUT)/bench

## make bench-idle    idle wakeups per CPU on x86_64 and ARM, tiny and realistic
##                    configs: periodic HZ=250, stock NO_HZ_IDLE and the series
bench-idle: tree
	@$(H)/bench-idle.sh $(TREE) $(OUT)/bench

## make bench-idle-cost  what stopping the tick at idle entry costs a busy
##                    guest: pipe ping-pong and sleeps, with wakeup_reduce=off,
##                    the series' filter and idle_stop_tick_us=0, interleaved
##                    (BENCH_ARCHES, default x86_64; BENCH_RUNS, default 9)
bench-idle-cost: tree
	@$(H)/bench-idle-cost.sh $(TREE) $(OUT)/bench

## make tools-test    build tools/sffs for the host and test them on images
tools-test: tree
	@mkdir -p $(RESULTS) $(BUILD)/tools-sffs
	@$(MAKE) -s -C $(TREE)/tools/sffs OUTPUT=$(BUILD)/tools-sffs/ test-progs
	@$(TREE)/tools/sffs/test.sh $(BUILD)/tools-sffs | tee $(OUT)/tools-test.txt; \
	p=$$(grep -c '^ok ' $(OUT)/tools-test.txt); \
	f=$$(grep -c '^not ok ' $(OUT)/tools-test.txt); \
	echo "tools-test: $$p passed, $$f failed" > $(RESULTS)/tools-test; \
	cat $(RESULTS)/tools-test; [ "$$f" = 0 ] && [ "$$p" -gt 0 ]

## make checkpatch    scripts/checkpatch.pl --strict on every generated patch
checkpatch: series
	@mkdir -p $(RESULTS)
	$(H)/checkpatch.sh $(TREE) $(OUT)/series $(RESULTS)/checkpatch

## make am-check      git am out/series onto a fresh base; same tree as built
am-check: series
	@mkdir -p $(RESULTS)
	$(H)/am-check.sh $(TREE) $(BUILD)/am-check $(OUT)/series $(RESULTS)/am-check

## make offcheck      with every series option off, vmlinux equals base function
##                    by function on x86_64 and ARM, but for the series' fixes
##                    of mainline code (harness/offcheck.allow)
offcheck: tree
	@mkdir -p $(RESULTS)
	$(H)/offcheck.sh $(TREE) $(BUILD) $(RESULTS)/offcheck \
		$(H)/configs/qemu-test.config

## make bisect-check  build the tiny x86_64 kernel at every commit (slow), with
##                    every option of the series and its KUnit suites that
##                    the commit defines
## make stress        the long loops: SFFS power cuts during garbage collection
##                     (STRESS_CUTS, default 1000) and program failures
##                     (STRESS_BB_ROUNDS, default 1000) on UML, then real
##                     power cuts in QEMU on ARM and x86_64 (stress-cuts,
##                     STRESS_REAL_CUTS each, default 500), then
##                     STRESS_FULL_CUTS each (default 250) on a flash kept
##                     STRESS_FULL percent full (default 90); the ARM and the
##                     x86_64 cuts run side by side (STRESS_SIDE_BY_SIDE=0:
##                     one after the other); not in make test
STRESS_CUTS ?= 1000
STRESS_BB_ROUNDS ?= 1000
STRESS_FULL ?= 90
STRESS_FULL_CUTS ?= 250
STRESS_SIDE_BY_SIDE ?= 1
STRESS_RC	= kunit build-arm build-x86_64 cuts-arm cuts-x86_64 \
		  cuts-arm-full cuts-x86_64-full
# Each part runs whatever the one before found; the exit status of each is
# kept in out/stress/*.rc, and the last line fails if one of them did (or
# never wrote its status).  The kernels and host tools are built first, one
# after the other; then the real cuts run in two lanes, one per
# architecture, each logging to out/stress/lane-ARCH.log and to the
# terminal with an [ARCH] prefix.  A cut is judged by what the flash holds,
# not by how fast the guest ran, so two guests sharing the host's CPUs test
# the same thing in about half the time (each guest does a little less work
# before its cut, which falls 0 to STRESS_KILL_MAX seconds into the work).
# Background jobs of a non-interactive shell ignore SIGINT: the trap stops
# both lanes when make is interrupted, and a lane stops at a signal.
stress: tree
	@mkdir -p $(RESULTS) $(OUT)/stress
	@rm -f $(OUT)/stress/*.rc
	$(H)/kunit.sh $(TREE) $(TREE)/.kunit $(OUT)/stress-kunit \
		$(H)/kunit/.kunitconfig fs/sffs/.kunitconfig \
		--kernel_args=sffs.gc_cuts=$(STRESS_CUTS) \
		--kernel_args=sffs.bb_rounds=$(STRESS_BB_ROUNDS) --timeout=3600 \
		'filter=sffs_[bp][ao]*'; echo $$? > $(OUT)/stress/kunit.rc
	@for a in arm x86_64; do \
		$(MAKE) --no-print-directory stress-cuts-build ARCH=$$a; \
		echo $$? > $(OUT)/stress/build-$$a.rc; \
	done
	@trap 'trap - INT TERM HUP; kill -TERM 0' INT TERM HUP; \
	for a in arm x86_64; do \
		{ $(MAKE) --no-print-directory stress-cuts-run ARCH=$$a \
			STRESS_FILL=0; \
		  rc=$$?; echo $$rc > $(OUT)/stress/cuts-$$a.rc; \
		  [ $$rc -lt 128 ] || exit $$rc; \
		  $(MAKE) --no-print-directory stress-cuts-run ARCH=$$a \
			STRESS_FILL=$(STRESS_FULL) \
			STRESS_REAL_CUTS=$(STRESS_FULL_CUTS); \
		  echo $$? > $(OUT)/stress/cuts-$$a-full.rc; } 2>&1 | \
		tee $(OUT)/stress/lane-$$a.log | sed -u "s/^/[$$a] /" & \
		[ "$(STRESS_SIDE_BY_SIDE)" != 0 ] || wait; \
	done; wait
	@ok=1; for f in $(STRESS_RC); do \
		rc=$$(cat $(OUT)/stress/$$f.rc 2>/dev/null); \
		[ "$$rc" = 0 ] || { echo "stress: $$f failed ($${rc:-no status})"; ok=; }; \
	done; [ -n "$$ok" ]

## make stress-cuts ARCH=arm|x86_64  real power cuts: QEMU killed with SIGKILL
##                    while the guest writes, fsyncs and renames on SFFS on a
##                    flash backed by a file (ARM: CFI NOR; x86_64: block2mtd
##                    on virtio-blk), each boot checking what the last cut
##                    left (STRESS_REAL_CUTS, default 500, STRESS_SEED,
##                    STRESS_KILL_MAX, STRESS_FILL: harness/stress-cuts.sh)
STRESS_REAL_CUTS ?= 500
export STRESS_REAL_CUTS
COBJ		= $(TREE)/.obj-$(ARCH)-cuts
stress-cuts: tree
	@$(MAKE) --no-print-directory stress-cuts-build
	@$(MAKE) --no-print-directory stress-cuts-run

# make stress builds both architectures first, then runs their cuts at once:
# the run builds nothing
stress-cuts-build:
	$(H)/kbuild.sh $(ARCH) $(TREE) $(COBJ) $(TEST_FRAGS) \
		$(H)/configs/stress-cuts-$(ARCH).config
	@mkdir -p $(BUILD)/tools-sffs
	@$(MAKE) -s -C $(TREE)/tools/sffs OUTPUT=$(BUILD)/tools-sffs/
ifeq ($(ARCH),x86_64)
	@$(call mtdcount,$(COBJ),x86_64)
endif

stress-cuts-run:
	@mkdir -p $(OUT)/stress
	$(H)/stress-cuts.sh $(ARCH) $(COBJ)/$(IMAGE_$(ARCH)) $(BUSYBOX_$(ARCH)) \
		$(BUILD)/tools-sffs $(OUT)/stress \
		$(if $(filter x86_64,$(ARCH)),$(COBJ)/mtdcount/mtdcount.ko)

bisect-check: tree
	$(H)/bisect-check.sh $(TREE) $(BUILD)/bisect $(H)/configs/x86_64.config \
		$(H)/configs/qemu-test.config $(H)/configs/series.config \
		$(H)/configs/bisect.config

## make test          everything above but bisect-check; last line N passed, N failed
test:
	@$(H)/test-all.sh $(MAKE) $(RESULTS)

clean:
	rm -rf $(OUT) $(TREE)/.obj-* $(TREE)/.kunit $(BUILD)/ksft-* \
		$(BUILD)/base-wt/.obj-* $(BUILD)/bisect/.obj

distclean:
	rm -rf $(OUT) $(BUILD)

SHELL := /bin/bash
