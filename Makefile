# aoekit top-level Makefile. See README.md.
#   make                 module (kmod/aoe.ko) + userland tools
#   make deps            install the Debian packages everything needs
#   make test            unit + VM tests, ends with "N passed, N failed"
#                        (kernel-independent scenarios on one kernel each)
#   make test-full       the same with every VM scenario on every kernel
#   make demo            boot a VM with the module and a vblade target
#   make bench           benchmarks (not part of make test)
#   make test-rootaoe    root file system on AoE alone, two VMs per kernel
#                        (make test runs it too, after the VM suite)
#   make debug-kernel    KASAN/lockdep/kmemleak/UBSAN kernel for the VM tests
#                        (DBGK_OUT=/work/dbgk; about 20-30 min on 2 cores;
#                        DBGK_SERIES=6.12 from linux-source-6.12, /work/dbgk-6.12)
#   make install         DESTDIR= PREFIX=/usr KVER=
#                        (tools, man4/man7/man8 pages, bash completion, systemd
#                        units, /etc/default/aoe, udev rules, initramfs-tools
#                        hook and script, the module)
#   make install-userland  the same without the module (what the aoekit
#                        Debian package ships)
#   make dkms-install    kmod/ + contrib/dkms.conf into /usr/src/aoekit-VERSION,
#                        dkms add (then: dkms install -m aoekit -v VERSION)
#   make deb             Debian packages aoekit (tools) and aoekit-dkms (module
#                        source for DKMS) with dpkg-buildpackage from a copy
#                        of the tree; the .debs land in build/deb/

KVER    ?= $(shell scripts/kver.sh)
KDIR    ?= /lib/modules/$(KVER)/build
PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
JOBS    ?= $(shell nproc)
VERSION := $(shell cat VERSION)
SYSCONFDIR ?= /etc
# bash-completion and systemd directories: from their pkg-config files, as
# they are where those packages look (not under PREFIX).
BASHCOMPDIR ?= $(or $(shell pkg-config --variable=completionsdir bash-completion 2>/dev/null),/usr/share/bash-completion/completions)
UNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
UDEVDIR ?= $(or $(shell pkg-config --variable=udevdir udev 2>/dev/null),/lib/udev)
DKMS_SRC ?= /usr/src/aoekit-$(VERSION)
# initramfs-tools hook and local-top script (root on AoE): the package's
# directory for PREFIX=/usr, the admin's /etc/initramfs-tools otherwise (a
# local install must not overwrite a packaged /usr/share one, e.g. aoetools').
INITRAMFSDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/share/initramfs-tools,$(SYSCONFDIR)/initramfs-tools)

USERLAND_BUILD := $(BUILD)/userland
CMAKE_BUILD_TYPE ?= RelWithDebInfo
ASAN_BUILD     := $(BUILD)/userland-asan


.PHONY: test-rootaoe test-full
.PHONY: all kmod userland userland-tools userland-test-tools userland-config deps test unit vmtest demo bench \
	install install-userland module-install contrib-install dkms-install dkms-tree deb \
	clean style check-kver debug-kernel

all: kmod userland

check-kver:
	@if [ -z "$(KVER)" ] || [ ! -d "$(KDIR)" ]; then \
		echo "no kernel headers for '$(KVER)' at $(KDIR): run 'make deps' or pass KVER=" >&2; \
		exit 1; fi

kmod: check-kver
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod AOE_VERSION=$(VERSION) modules

userland-config:
	cmake -S userland -B $(USERLAND_BUILD) -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE) \
		-DAOE_VERSION=$(VERSION) -DAOE_WERROR=ON >/dev/null

# Everything: the tools, test helpers and unit tests.
userland: userland-config
	cmake --build $(USERLAND_BUILD) -j $(JOBS)

# Only the installed tools (tools.list, written when cmake configures).
userland-tools: userland-config
	cmake --build $(USERLAND_BUILD) -j $(JOBS) --target $$(cat $(USERLAND_BUILD)/tools.list)

# What make test's host and VM tests run: the tools and the test helpers (the
# unit tests are make unit's, built with ASan).
userland-test-tools: userland-config
	cmake --build $(USERLAND_BUILD) -j $(JOBS) --target $$(cat $(USERLAND_BUILD)/tools.list) aoe-prom-sample

deps:
	@scripts/deps.sh

# Unit tests run under ASan/UBSan in their own build tree.
unit:
	cmake -S userland -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DAOE_SANITIZE=ON \
		-DAOE_VERSION=$(VERSION) -DAOE_WERROR=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target unit-tests
	cd $(ASAN_BUILD) && ctest --output-on-failure

vmtest: all
	tests/vm/run.sh

test: deps
	@tests/run.sh

test-full: deps
	@AOE_VM_ARGS=--every-kernel tests/run.sh

demo: deps all
	tests/vm/demo.sh

bench: deps all
	tests/vm/bench.sh

test-rootaoe: deps all
	tests/vm/rootaoe.sh

DBGK_SERIES ?= 6.1
DBGK_OUT ?= $(if $(filter 6.1,$(DBGK_SERIES)),/work/dbgk,/work/dbgk-$(DBGK_SERIES))
debug-kernel:
	tests/vm/debug-kernel.sh --series $(DBGK_SERIES) --out $(DBGK_OUT) --smoke

install: install-userland module-install

# Tools, man pages and contrib/ files; no module (the aoekit package: the
# module comes from aoekit-dkms).
install-userland: userland-tools
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(PREFIX)/share/man/man4 $(DESTDIR)$(PREFIX)/share/man/man7
	for t in $$(cat $(USERLAND_BUILD)/tools.list); do \
		install -m 0755 $(USERLAND_BUILD)/$$t $(DESTDIR)$(PREFIX)/sbin/; done
	for m in man/*.8; do [ -e "$$m" ] && install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man8/; done; true
	for m in man/*.4; do [ -e "$$m" ] && install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man4/; done; true
	for m in man/*.7; do [ -e "$$m" ] && install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man7/; done; true
	$(MAKE) contrib-install

# Bash completion (one copy per tool name, as bash-completion loads them by
# command name), systemd units (PREFIX substituted), /etc/default/aoe (kept
# if it exists), udev rules (persistent /dev/disk/by-id and by-path names),
# the initramfs-tools hook and boot script (root on AoE; aoe-initramfs(7):
# run update-initramfs -u afterwards).
contrib-install: userland-tools
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/default \
		$(DESTDIR)$(UDEVDIR)/rules.d $(DESTDIR)$(INITRAMFSDIR)/hooks \
		$(DESTDIR)$(INITRAMFSDIR)/scripts/local-top
	install -m 0644 contrib/udev/*.rules $(DESTDIR)$(UDEVDIR)/rules.d/
	install -m 0755 contrib/initramfs-tools/hooks/aoe $(DESTDIR)$(INITRAMFSDIR)/hooks/aoe
	install -m 0755 contrib/initramfs-tools/scripts/local-top/aoe \
		$(DESTDIR)$(INITRAMFSDIR)/scripts/local-top/aoe
	for t in $$(cat $(USERLAND_BUILD)/tools.list); do \
		install -m 0644 contrib/bash-completion/aoekit $(DESTDIR)$(BASHCOMPDIR)/$$t; done
	for u in contrib/systemd/*.service contrib/systemd/*.timer; do \
		sed 's#@PREFIX@#$(PREFIX)#g' $$u > $(DESTDIR)$(UNITDIR)/$$(basename $$u) && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$(basename $$u); done
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/aoe ] || \
		install -m 0644 contrib/default/aoe $(DESTDIR)$(SYSCONFDIR)/default/aoe

# A DKMS source tree in $(DKMS_SRC): the module sources and dkms.conf with
# the version filled in.
dkms-tree:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	install -d $(DESTDIR)$(DKMS_SRC)/uapi
	install -m 0644 kmod/Makefile kmod/Kbuild $(filter-out %.mod.c,$(wildcard kmod/*.c)) kmod/*.h $(DESTDIR)$(DKMS_SRC)/
	install -m 0644 kmod/uapi/*.h $(DESTDIR)$(DKMS_SRC)/uapi/
	sed 's/#MODULE_VERSION#/$(VERSION)/' contrib/dkms.conf > $(DESTDIR)$(DKMS_SRC)/dkms.conf

dkms-install: dkms-tree
	if [ -z "$(DESTDIR)" ]; then \
		dkms remove -m aoekit -v $(VERSION) --all >/dev/null 2>&1; \
		dkms add -m aoekit -v $(VERSION); fi

module-install: kmod
	install -d $(DESTDIR)/lib/modules/$(KVER)/updates
	install -m 0644 kmod/aoe.ko $(DESTDIR)/lib/modules/$(KVER)/updates/aoe.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

# Debian packages (debian/): dpkg-buildpackage writes into the parent of the
# tree it builds, so it builds a copy in $(DEB_OUT)/aoekit-VERSION (no build/,
# no .git, nothing .gitignore'd; uncommitted changes included) and the .debs,
# .buildinfo and .changes land in $(DEB_OUT). The copy is removed afterwards.
DEB_OUT ?= $(BUILD)/deb
deb:
	@v=$$(dpkg-parsechangelog -l debian/changelog -S Version) && [ "$$v" = "$(VERSION)" ] || \
		{ echo "debian/changelog is at $$v, VERSION is $(VERSION): add a changelog entry (dch -v $(VERSION))" >&2; exit 1; }
	rm -rf $(DEB_OUT)
	mkdir -p $(DEB_OUT)/aoekit-$(VERSION)
	rsync -a --exclude=/build/ --exclude=/.git --filter=':- .gitignore' ./ $(DEB_OUT)/aoekit-$(VERSION)/
	cd $(DEB_OUT)/aoekit-$(VERSION) && dpkg-buildpackage -b -us -uc -j$(JOBS)
	rm -rf $(DEB_OUT)/aoekit-$(VERSION)
	@ls $(DEB_OUT)/*.deb

style:
	scripts/checkpatch.sh
	scripts/shell-lint.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean 2>/dev/null
	rm -rf $(BUILD)
