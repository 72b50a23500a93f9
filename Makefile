# Memory-tiering patch stack on Debian's linux-source-6.12: build, boot in a
# tiered QEMU guest, test. `make help` lists the targets.
#
# Variables a user may set:
#   CONFIG=name   a config from defconfigs/matrix (default: all if the
#                 matrix has it, else stock)
#   CMD='...'     with `make boot`: run this in the guest, then power off
#   SHARE=dir     with `make boot`: host dir visible as /share in the guest
#   WORK=dir      kernel tree, build dirs, rootfs, logs (default: ./work)
#   JOBS=n        parallel build jobs (default: number of CPUs + 1)
#   TIMEOUT=s     wall-clock limit of a non-interactive boot (default 600)
#   V=1           show the full commands and their output
#   QUICK=1       with `make bench`: the short run `make run` shows
#   ONLY='g ...'  with `make test`: run only these test groups

WORK ?= $(CURDIR)/work
JOBS ?= $(shell echo $$(($$(nproc) + 1)))
export WORK JOBS V TIMEOUT

CONFIG ?= $(shell boot/matrix default)
CONFIGS := $(shell boot/matrix names)
ifeq ($(filter $(CONFIG),$(CONFIGS)),)
$(error unknown CONFIG '$(CONFIG)'; valid names: $(CONFIGS))
endif

ifneq ($(filter export-debian,$(MAKECMDGOALS)),)
ifeq ($(DIR),)
$(error make export-debian needs DIR, where the patches go: make export-debian DIR=path/to/debian/patches)
endif
endif

.PHONY: help deps source kernel menuconfig rootfs guest-bins boot run test \
	matrix bench check check-harness check-patches check-bench check-build rebase export export-debian ci-jobs savefragment deb check-deb release-notes \
	clean distclean

help: ## this list
	@awk -F':.*## ' '/^[a-z-]+:.*## / { printf "  make %-15s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
	@echo "  configs: $(CONFIGS)"

deps: ## install the Debian packages this needs (asks for root)
	@boot/deps

source: deps ## extract linux-source-6.12 into WORK, apply the stack
	@boot/source prepare

kernel: source ## build the kernel of CONFIG
	@boot/build $(CONFIG)

menuconfig: source ## edit CONFIG's .config with menuconfig
	@boot/build $(CONFIG) menuconfig

savefragment: source ## write CONFIG's menuconfig edits as defconfigs/NAME.config
	@boot/build $(CONFIG) savefragment '$(NAME)'

rootfs: deps ## the guest's Debian 12 root filesystem (mmdebstrap; no root needed)
	@rootfs/build >/dev/null

guest-bins: source ## build the upstream selftests and helpers for the guest
	@tests/build-guest-bins

boot: kernel rootfs guest-bins ## boot CONFIG; a shell, or CMD='...' (SHARE=dir)
	@boot/qemu $(CONFIG) $(if $(value CMD),--cmd '$(subst ','\'',$(value CMD))') \
		$(if $(SHARE),--share '$(SHARE)') $(if $(TIMEOUT),--timeout $(TIMEOUT))

run: kernel rootfs guest-bins ## boot CONFIG, show its tiers and features, promote a hot set
	@boot/qemu $(CONFIG) --cmd /stack/boot/guest-show
	@bench/run --quick --variants '$(CONFIG):NUMAB0 $(CONFIG):NUMAB2'

test: source ## build, boot and test CONFIG
	@tests/run-config $(CONFIG)

matrix: source ## build, boot and test every config in the matrix
	@tests/check --matrix-only

bench: source rootfs ## promotion benchmark, pristine vs precise and all (QUICK=1: a short one)
	@boot/build pristine
	@$(if $(QUICK),true,boot/build precise)
	@boot/build all
	@bench/run $(if $(QUICK),--quick)

check: deps ## everything CI runs: harness, patches, the whole matrix
	@tests/check

ci-jobs: ## the CI job list, one job per matrix config, as JSON (.github/workflows/matrix.yml)
	@.ci/jobs

check-harness: ## the harness's own tests (recorded logs, no kernel)
	@tests/harness/run

check-bench: ## the benchmark's own tests (host only, no guest)
	@bench/check

check-patches: source ## the series applies with git am and patch -p1, clean headers
	@tests/check --patches-only

check-build: source ## compile-only: every file the stack touches, its stubs, the Kconfig sweep
	@tests/check-build

check-bisect: source ## build and boot the series patch by patch (CONFIG, default all; long)
	@tests/bisect $(CONFIG)

rebase: deps ## re-extract for the installed linux-source-6.12, re-apply
	@boot/source rebase

release-notes: ## the CHANGELOG's newest section: what the next (or last) release holds
	@awk '/^## / { if (n++) exit } n' $(or $(CHANGES),CHANGELOG)

deb: source ## Debian packages of CONFIG's kernel in WORK/deb (to install elsewhere, never here)
	@boot/deb $(CONFIG)

check-deb: source ## build CONFIG's packages (default all) and inspect them with dpkg-deb
	@tests/check-deb $(if $(filter command line,$(origin CONFIG)),$(CONFIG),all)

export-debian: ## write the series as debian/patches (quilt series, DEP-3 headers) into DIR
	@boot/debian-patches.py export '$(DIR)'

export: ## write the stack branch in WORK/src back to linux.patch-stack/
	@boot/source export

clean: ## remove build directories, boot logs and guest binaries
	rm -rf $(WORK)/build $(WORK)/build-check $(WORK)/boots $(WORK)/test $(WORK)/guest $(WORK)/guest-headers \
		$(WORK)/guest-bench

distclean: ## remove WORK entirely (kernel tree and rootfs too)
	rm -rf $(WORK)
