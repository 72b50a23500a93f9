#!/bin/bash
# Specific-purpose memory nodes (CONFIG_SPM_NODES): node 3's reserved range
# becomes devdax, is marked spm_node and onlined through dax kmem, and must
# then be out of reach of every ordinary allocation and of user space.
# Cases run in order and build on each other: node 3 stays SPM.
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

DAXS=/sys/bus/dax/devices
CASE_TIMEOUT=600 # the pressure cases swap hundreds of MiB under TCG
CG=/sys/fs/cgroup
STATE=/tmp/spm-test.dax # name of node 3's dax device, for later cases

# echo VALUE > FILE must fail with the errno named by $3 (EINVAL, EBUSY...).
expect_write_error() {
	local file=$1 value=$2 want=$3 msg
	if msg=$( (echo "$value" >"$file") 2>&1); then
		fail "writing '$value' to $file succeeded; expected $want"
		return 1
	fi
	echo "write '$value' > $file: $msg"
	case "$want:$msg" in
	EINVAL:*"Invalid argument"* | EBUSY:*"Device or resource busy"*) ;;
	*) fail "expected $want"; return 1 ;;
	esac
}

dax3() { cat "$STATE"; }

# The purpose node 3 gets: what the zswap example looks for when it is built.
purpose() { if has_config ZSWAP_SPM; then echo compressed_ram; else echo generic; fi; }
other_purpose() { if has_config ZSWAP_SPM; then echo generic; else echo compressed_ram; fi; }

case_dax_attributes_validate_input() {
	local dax
	dax=$(devdax_on_node 3) || fail "cannot make a devdax device on node 3"
	echo "$dax" >"$STATE"
	echo "$dax: spm_node $(cat "$DAXS/$dax/spm_node"), spm_purpose $(cat "$DAXS/$dax/spm_purpose")"
	[ "$(cat "$DAXS/$dax/spm_node")" = 0 ] || fail "spm_node is not 0 by default"
	expect_write_error "$DAXS/$dax/spm_node" 2 EINVAL
	expect_write_error "$DAXS/$dax/spm_node" maybe EINVAL
	expect_write_error "$DAXS/$dax/spm_purpose" flash EINVAL
	echo 1 >"$DAXS/$dax/spm_node"
	purpose >"$DAXS/$dax/spm_purpose"
	[ "$(cat "$DAXS/$dax/spm_node")" = 1 ] || fail "spm_node did not take 1"
	[ "$(cat "$DAXS/$dax/spm_purpose")" = "$(purpose)" ] || fail "spm_purpose did not take $(purpose)"
}

# Node 3's memory onlined as SPM. A VMA policy bound relative to the
# allowed nodes (MPOL_F_RELATIVE_NODES) to the 4th of them, {3}, folds
# onto node 0 while SysRAM nodes 0-2 are all there is; the cpuset rebind
# that onlining runs must not remap it onto node 3, which ordinary
# allocations never use: the policy stays (as /proc/PID/numa_maps shows
# it; get_mempolicy() gives back the nodes the caller named), and its pages
# land on node 0.
case_node3_onlined_as_spm() {
	local dax n rb0 rb1 rb2 rbpid rbrc=0
	dax=$(dax3)
	# node 3 has no sysfs directory until its memory is added
	[ ! -e /sys/devices/system/node/node3/spm_purpose ] ||
		[ "$(cat /sys/devices/system/node/node3/spm_purpose)" = none ] || fail "node 3 is SPM before memory was added"
	rm -f /tmp/spm-rb-in /tmp/spm-rb-out
	mkfifo /tmp/spm-rb-in /tmp/spm-rb-out
	/guest/bin/spm-probe relbind 3 </tmp/spm-rb-in >/tmp/spm-rb-out &
	rbpid=$!
	exec 5>/tmp/spm-rb-in 6</tmp/spm-rb-out
	read -r rb0 <&6 || fail "spm-probe relbind died before reporting its policy"
	dmesg -C
	dax_to_kmem "$dax" || fail "kmem did not take $dax with spm_node=1"
	online_node_movable 3 || fail "cannot online node 3's memory"
	echo go >&5
	read -r rb1 <&6 || true
	read -r rb2 <&6 || true
	exec 5>&- 6<&-
	wait "$rbpid" || rbrc=$?
	rm -f /tmp/spm-rb-in /tmp/spm-rb-out
	echo "mbind(MPOL_BIND | MPOL_F_RELATIVE_NODES, {3}): $rb0, then $rb1${rb2:+, $rb2} (exit $rbrc)"
	[ "$rb0" = "before policy=bind=relative:0" ] || fail "a relative policy for {3} over SysRAM nodes 0-2 should fold onto node 0: $rb0"
	[ "$rb1" = "after policy=bind=relative:0" ] || fail "onlining SPM node 3 remapped a relative policy: $rb0 -> $rb1"
	[ "$rbrc:$rb2" = "0:pages on=0" ] || fail "the pages of the policy did not land on node 0: ${rb2:-none} (exit $rbrc)"
	dmesg | grep spm_nodes: || true
	grep -E 'MemTotal|MemFree' /sys/devices/system/node/node3/meminfo
	echo "has_memory: $(cat /sys/devices/system/node/has_memory)"
	[ "$(cat /sys/devices/system/node/has_memory)" = 0-3 ] || fail "node 3 has no memory after onlining"
	for n in 0 1 2 3; do
		echo "node$n/spm_purpose: $(cat /sys/devices/system/node/node$n/spm_purpose)"
	done
	[ "$(cat /sys/devices/system/node/node3/spm_purpose)" = "$(purpose)" ] || fail "node 3 is not an SPM node of purpose $(purpose)"
	[ "$(cat /sys/devices/system/node/node2/spm_purpose)" = none ] || fail "node 2 became SPM"
	dmesg | grep -qx ".*spm_nodes: node 3 is a Specific Purpose Memory node ($(purpose))" || fail "no log line for the new SPM node"
	expect_write_error "$DAXS/$dax/spm_node" 0 EBUSY
	expect_write_error "$DAXS/$dax/spm_purpose" "$(other_purpose)" EBUSY
}

case_cpuset_sysram_excludes_node3() {
	local cg=$CG/spm-test eff sys allowed
	echo +cpuset >"$CG/cgroup.subtree_control"
	mkdir -p "$cg"
	eff=$(cat "$cg/cpuset.mems.effective")
	sys=$(cat "$cg/cpuset.mems.sysram")
	echo "cpuset.mems.effective $eff, cpuset.mems.sysram $sys"
	[ "$eff" = 0-3 ] || fail "cpuset.mems.effective should include node 3"
	[ "$sys" = 0-2 ] || fail "cpuset.mems.sysram should be 0-2"
	allowed=$(sed -n 's/^Mems_allowed_list:\s*//p' /proc/self/status)
	echo "Mems_allowed_list of a new task: $allowed"
	grep -q '^Mems_allowed:' /proc/self/status || fail "/proc/PID/status lost Mems_allowed"
	[ "$allowed" = 0-2 ] || fail "a task may allocate from node 3"
	rmdir "$cg"
}

# Every way of naming node 3 in a policy is refused, not accepted and
# then dropped: set_mempolicy() and mbind() binding to it alone, a home
# node (set_mempolicy_home_node()), a tmpfs mount's mpol= option; node 2
# works each way.
case_mempolicy_naming_only_node3_rejected() {
	local out mnt
	out=$(/guest/bin/spm-probe policy 3)
	echo "node 3: $out"
	grep -qx 'set_mempolicy: EINVAL' <<<"$out" || fail "set_mempolicy(MPOL_BIND, {3}) was not rejected"
	grep -qx 'mbind: EINVAL' <<<"$out" || fail "mbind(MPOL_BIND, {3}) was not rejected"
	out=$(/guest/bin/spm-probe policy 2)
	echo "node 2: $out"
	[ "$out" = $'set_mempolicy: ok\nmbind: ok' ] || fail "binding to SysRAM node 2 should work"
	out=$(/guest/bin/spm-probe homenode 3)
	echo "home node 3: $out"
	[ "$out" = 'set_mempolicy_home_node: EINVAL' ] || fail "set_mempolicy_home_node() to node 3 was not rejected"
	out=$(/guest/bin/spm-probe homenode 2)
	echo "home node 2: $out"
	[ "$out" = 'set_mempolicy_home_node: ok' ] || fail "set_mempolicy_home_node() to node 2 should work"
	mnt=$(mktemp -d)
	if mount -t tmpfs -o size=1M,mpol=bind:3 spm-test "$mnt" 2>/dev/null; then
		umount "$mnt"
		rmdir "$mnt"
		fail "a tmpfs mount with mpol=bind:3 was accepted"
	fi
	echo "tmpfs mpol=bind:3: refused"
	mount -t tmpfs -o size=1M,mpol=bind:2 spm-test "$mnt" || { rmdir "$mnt"; fail "a tmpfs mount with mpol=bind:2 failed"; }
	echo "tmpfs mpol=bind:2: $(grep " $mnt " /proc/mounts)"
	umount "$mnt"
	rmdir "$mnt"
}

# A cpuset whose mems hold only node 3 (SPM) gives its tasks no SysRAM
# node of its own; they allocate from the SysRAM nodes of the nearest
# ancestor that has some (here the root's: 0-2), as they would from an
# ancestor's nodes when their own have no memory. Documented in
# Documentation/admin-guide/mm/spm-nodes.rst. The cpuset itself keeps
# mems 3.
case_cpuset_of_only_spm_falls_back_to_parent() {
	local cg=$CG/spm-only allowed
	echo +cpuset >"$CG/cgroup.subtree_control"
	mkdir -p "$cg"
	echo 3 >"$cg/cpuset.mems" || fail "cpuset.mems 3 was refused"
	echo "cpuset.mems $(cat "$cg/cpuset.mems"), effective $(cat "$cg/cpuset.mems.effective"), sysram '$(cat "$cg/cpuset.mems.sysram")'"
	[ "$(cat "$cg/cpuset.mems.effective")" = 3 ] || fail "cpuset.mems.effective should be 3"
	[ -z "$(cat "$cg/cpuset.mems.sysram")" ] || fail "cpuset.mems.sysram should be empty"
	allowed=$(sh -c "echo \$\$ >$cg/cgroup.procs && sed -n 's/^Mems_allowed_list:\s*//p' /proc/self/status")
	echo "Mems_allowed_list of a task in it: $allowed"
	[ "$allowed" = 0-2 ] || fail "a task in a cpuset of only node 3 should allocate from the root's SysRAM nodes 0-2, not $allowed"
	rmdir "$cg"
}

case_spm_memory_into_sysram_node_fails() {
	local dax total0 total1
	dax=$(devdax_on_node 2) || fail "cannot make a devdax device on node 2"
	echo 1 >"$DAXS/$dax/spm_node"
	total0=$(awk '/MemTotal/ { print $4 }' /sys/devices/system/node/node2/meminfo)
	echo "$dax on node 2 (SysRAM since boot), spm_node 1, to kmem:"
	dmesg -C
	if dax_to_kmem "$dax"; then
		fail "kmem took SPM memory into SysRAM node 2"
		return 1
	fi
	dmesg | sed 's/^/  dmesg: /'
	expect_write_error /sys/bus/dax/drivers/kmem/bind "$dax" EBUSY
	total1=$(awk '/MemTotal/ { print $4 }' /sys/devices/system/node/node2/meminfo)
	echo "node 2 MemTotal: $total0 kB -> $total1 kB"
	[ "$total1" = "$total0" ] || fail "node 2 grew"
}

# /proc/PID/oom_score weighs a task's memory against the memory it could
# have had: RAM and swap, without SPM nodes, which ordinary allocations
# never use. A process holding 160 MiB gets the score computed here from
# its own counters (oom_badness(): resident pages, swap entries, page
# tables) over MemTotal less node 3's MemTotal plus SwapTotal; counted
# with node 3 it would be several points lower.
case_oom_score_leaves_spm_out() {
	local out pid pg rss swp pte adj b mem n3 swap want with got
	out=$(mktemp)
	perl -e '$| = 1; $x = "a" x (160 << 20); print "ready\n"; sleep 600' >"$out" &
	pid=$!
	wait_for 120 grep -q ready "$out" || { kill "$pid"; fail "the 160 MiB holder did not start"; }
	pg=$(($(getconf PAGESIZE) / 1024))
	rss=$(awk '{ print $2 }' "/proc/$pid/statm")
	swp=$(awk '/^VmSwap:/ { print $2 }' "/proc/$pid/status")
	pte=$(awk '/^VmPTE:/ { print $2 }' "/proc/$pid/status")
	adj=$(cat "/proc/$pid/oom_score_adj")
	got=$(cat "/proc/$pid/oom_score")
	kill "$pid"
	wait "$pid" 2>/dev/null || true # killed: status 143
	rm -f "$out"
	[ "$adj" = 0 ] || fail "oom_score_adj of the holder is $adj, not 0"
	b=$((rss + swp / pg + pte / pg))
	mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
	swap=$(awk '/^SwapTotal:/ { print $2 }' /proc/meminfo)
	n3=$(awk '/MemTotal/ { print $4 }' /sys/devices/system/node/node3/meminfo)
	want=$(((1000 + b * 1000 / ((mem - n3 + swap) / pg)) * 2 / 3))
	with=$(((1000 + b * 1000 / ((mem + swap) / pg)) * 2 / 3))
	echo "holder: $rss resident pages, VmSwap $swp kB, VmPTE $pte kB; MemTotal $mem kB, node 3 $n3 kB, SwapTotal $swap kB"
	echo "oom_score $got; without node 3: $want; with node 3: $with"
	[ $((want - with)) -ge 3 ] || fail "node 3 is too small to tell the two scores apart ($want, $with)"
	[ "$got" -ge $((want - 1)) ] || fail "oom_score $got is below the $want of RAM without node 3 (with node 3: $with)"
	[ "$got" -le $((want + 1)) ] || fail "oom_score $got is above the $want of RAM without node 3 (with node 3: $with)"
}

# No mapping can ever get node 3's memory, so the overcommit limits leave
# it out: CommitLimit (vm.overcommit_ratio of RAM less node 3, plus swap,
# computed here in pages from /proc/meminfo and node 3's MemTotal), and
# the heuristic of vm.overcommit_memory=0, which refuses a mapping larger
# than RAM and swap: one 3/4 of the way from RAM less node 3 plus swap to
# RAM plus swap must fail with ENOMEM, and one a quarter of the way below
# RAM less node 3 plus swap must be accepted.
case_overcommit_leaves_spm_out() {
	local pg mem n3 swap ratio kb huge want got over under out out2 mode
	pg=$(($(getconf PAGESIZE) / 1024))
	mem=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / pg))
	swap=$(($(awk '/^SwapTotal:/ { print $2 }' /proc/meminfo) / pg))
	n3=$(($(awk '/MemTotal/ { print $4 }' /sys/devices/system/node/node3/meminfo) / pg))
	huge=$(awk '/^Hugetlb:/ { print $2 }' /proc/meminfo)
	ratio=$(cat /proc/sys/vm/overcommit_ratio) kb=$(cat /proc/sys/vm/overcommit_kbytes)
	mode=$(cat /proc/sys/vm/overcommit_memory)
	[ "$kb:${huge:-0}" = 0:0 ] || fail "the figure below assumes overcommit_kbytes 0 and no huge pages ($kb, $huge kB)"
	want=$(((mem - n3) * ratio / 100 + swap))
	got=$(($(awk '/^CommitLimit:/ { print $2 }' /proc/meminfo) / pg))
	echo "CommitLimit $got pages; RAM less node 3 at ${ratio}% plus swap: $want; with node 3: $((mem * ratio / 100 + swap))"
	[ "$got" = "$want" ] || fail "CommitLimit $got pages is not the $want of RAM without node 3"
	over=$(((mem - n3 + swap + 3 * n3 / 4) * pg / 1024))
	under=$(((mem - n3 + swap - n3 / 4) * pg / 1024))
	echo 0 >/proc/sys/vm/overcommit_memory
	out=$(/guest/bin/spm-probe map "$over") out2=$(/guest/bin/spm-probe map "$under")
	echo "$mode" >/proc/sys/vm/overcommit_memory
	echo "overcommit_memory=0: $over MiB: $out; $under MiB: $out2"
	[ "$out" = 'mmap: ENOMEM' ] || fail "a $over MiB mapping, more than RAM less node 3 plus swap, was not refused"
	[ "$out2" = 'mmap: ok' ] || fail "a $under MiB mapping, less than RAM less node 3 plus swap, was refused"
}

# Fill nodes 0-2 two ways; node 3's free memory must not move. zswap is off
# meanwhile: with the compressed-RAM example, zswap may use node 3 on
# purpose (the next case checks that).
# Under KASAN on TCG the system-wide hog alone takes minutes (145 s of
# all-debug's make check, against 11 s on all) for code that KASAN adds
# little to: the allocator's check is one inline test, and the same case
# runs on the non-debug configs. The -debug configs skip it.
case_pressure_leaves_node3_alone() {
	local before after cg=$CG/spm-pressure avail zs
	! has_config KASAN || skip "the hog takes minutes under KASAN; the non-debug configs run this case"
	zs=$(cat /sys/module/zswap/parameters/enabled)
	echo N >/sys/module/zswap/parameters/enabled
	before=$(node_free_kb 3)
	echo +memory >"$CG/cgroup.subtree_control"
	mkdir -p "$cg"
	echo 32M >"$cg/memory.max"
	(echo 0 >"$cg/cgroup.procs" && exec /guest/bin/spm-probe fill 128) || fail "memcg fill failed"
	echo "memcg over its limit: swapped out $(awk '$1 == "pswpout" { print $2 }' /proc/vmstat) pages so far"
	rmdir "$cg"
	# MemAvailable counts node 3's free memory too; leave it out. Past
	# the low watermarks of nodes 0-2 an allocation that may use node 3
	# takes its free pages before reclaiming anything, so a hog 32 MiB over
	# what they have is enough; every MiB past that is swapped out and in
	# again for nothing (128 MiB over took minutes under TCG).
	avail=$(awk -v n3="$before" '/MemAvailable/ { print int(($2 - n3) / 1024) }' /proc/meminfo)
	echo "system-wide hog of $((avail + 32)) MiB (MemAvailable without node 3: $avail MiB)"
	/guest/bin/spm-probe fill $((avail + 32)) || fail "system-wide fill failed"
	after=$(node_free_kb 3)
	echo "$zs" >/sys/module/zswap/parameters/enabled
	echo "node 3 MemFree: $before kB before, $after kB after"
	[ "$after" = "$before" ] || fail "node 3's free memory changed under pressure"
}

# zswap_fill MIB MEASURE [SETUP [AGAIN]]: spm-probe writes MIB MiB in a
# 32 MiB memcg (most of it goes to zswap), says so and waits; the function
# MEASURE runs then, and spm-probe reads everything back, which must be
# intact (its line is left in read1). SETUP (default limit_32m) is run
# first with the cgroup's directory. With AGAIN, spm-probe runs in its
# poison mode: AGAIN runs after the first read back, and everything is
# read a second time (line in read2).
limit_32m() { echo 32M >"$1/memory.max"; }
zswap_fill() {
	local cg=$CG/spm-zswap out pid mode=hold
	[ -z "${4:-}" ] || mode=poison
	echo Y >/sys/module/zswap/parameters/enabled
	echo +memory >"$CG/cgroup.subtree_control"
	mkdir -p "$cg"
	"${3:-limit_32m}" "$cg"
	rm -f /tmp/spm-in /tmp/spm-out
	mkfifo /tmp/spm-in /tmp/spm-out
	(echo 0 >"$cg/cgroup.procs" && exec /guest/bin/spm-probe fill "$1" "$mode" </tmp/spm-in >/tmp/spm-out) &
	pid=$!
	exec 3>/tmp/spm-in 4</tmp/spm-out
	read -r out <&4 || fail "spm-probe died before writing"
	echo "spm-probe: $out"
	"$2"
	echo go >&3
	read -r read1 <&4 || true
	echo "spm-probe: $read1"
	if [ -n "${4:-}" ]; then
		"$4"
		echo go >&3
		read -r read2 <&4 || true
		echo "spm-probe: $read2"
	fi
	exec 3>&- 4<&-
	wait "$pid" || fail "pages came back wrong"
	rmdir "$cg"
}

stored_now() {
	after=$(node_free_kb 3) zs1=$(cat /sys/kernel/debug/zswap/stored_pages)
	echo "zswap stored pages: $zs0 -> $zs1; node 3 MemFree: $before kB -> $after kB"
}

# zswap stores on node 3: a page of node 3 for each page stored.
case_zswap_stores_on_compressed_ram_node() {
	local before after zs0 zs1
	has_config ZSWAP_SPM || skip "CONFIG_ZSWAP_SPM is off in this config"
	before=$(node_free_kb 3) zs0=$(cat /sys/kernel/debug/zswap/stored_pages)
	zswap_fill 128 stored_now
	[ $((zs1 - zs0)) -ge 8192 ] || fail "zswap stored only $((zs1 - zs0)) pages"
	[ $((before - after)) -ge $(((zs1 - zs0) * 4 * 9 / 10)) ] ||
		fail "node 3 gave $((before - after)) kB for $((zs1 - zs0)) stored pages"
}

# Pages reach zswap by reclaim, and the reclaimer is often not the owner:
# kswapd, or proactive reclaim written by a task of another cgroup. Where
# a page may go is the owner's cpuset's say: this shell (root cgroup, every
# node allowed) reclaims the 64 MiB of spm-probe in a cgroup whose cpuset
# excludes node 3, and zswap must store none of it there. The same with
# node 3 allowed shows that the reclaim stores on node 3 when it may.
owner_mems() { echo +cpuset >"$CG/cgroup.subtree_control"; echo "$MEMS" >"$1/cpuset.mems"; }
# Pages swapped out so far, through zswap or to the disk when zswap could
# not compress them (spm-probe's data barely compresses).
swapped_out() { awk '$1 == "zswpout" || $1 == "pswpout" { s += $2 } END { print s + 0 }' /proc/vmstat; }
reclaim_now() {
	local cg=$CG/spm-zswap z0
	s0=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	z0=$(swapped_out)
	echo 64M >"$cg/memory.reclaim" || true # short of 64M is fine
	s1=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	zout=$(($(swapped_out) - z0))
	echo "cpuset.mems $MEMS: reclaim from the root cgroup swapped out $zout pages, $((s1 - s0)) of them stored on node 3"
}

case_zswap_follows_owner_cpuset() {
	local MEMS s0 s1 zout
	has_config ZSWAP_SPM || skip "CONFIG_ZSWAP_SPM is off in this config"
	MEMS=0-3
	zswap_fill 64 reclaim_now owner_mems
	[ "$zout" -ge 4096 ] || fail "the reclaim swapped out only $zout pages"
	[ $((s1 - s0)) -ge $((zout / 2)) ] || fail "with node 3 allowed, only $((s1 - s0)) of $zout pages went there"
	MEMS=0-2
	zswap_fill 64 reclaim_now owner_mems
	[ "$zout" -ge 4096 ] || fail "the reclaim swapped out only $zout pages"
	[ "$s1" -le "$s0" ] || fail "$((s1 - s0)) pages of a cgroup whose cpuset excludes node 3 were stored there"
}

# zswap keeps its entries on per-node lists, and the shrinker that reclaim
# runs for a node writes back the entries on that node's list. An entry
# kept on the compressed-RAM node takes its memory there, not on the
# SysRAM node its zswap_entry was allocated on, so it belongs on node 3's
# list: written back because node 0 is short, it would free nothing there.
# The shrinker's count per memcg and node (debugfs, SHRINKER_DEBUG, in the
# spm config only) shows
# where the entries of spm-probe's cgroup are; zswap counts nothing while
# its shrinker is off, so it is on for the read.
lru_count_now() {
	local ino counts
	s1=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	ino=$(stat -c %i "$CG/spm-zswap")
	echo Y >/sys/module/zswap/parameters/shrinker_enabled
	counts=$(cat /sys/kernel/debug/shrinker/mm-zswap-*/count)
	echo "$shrinker_was" >/sys/module/zswap/parameters/shrinker_enabled
	line=$(awk -v ino="$ino" '$1 == ino' <<<"$counts")
	echo "zswap: $((s1 - s0)) pages stored on node 3; the cgroup's shrinker count (inode, nodes 0 to 3): ${line:-none}"
}

case_spm_entries_on_node3_list() {
	local s0 s1 line shrinker_was c3
	has_config ZSWAP_SPM || skip "CONFIG_ZSWAP_SPM is off in this config"
	has_config SHRINKER_DEBUG || skip "no shrinker counts in debugfs here (CONFIG_SHRINKER_DEBUG): the spm config has them"
	compgen -G '/sys/kernel/debug/shrinker/mm-zswap-*/count' >/dev/null ||
		fail "no zswap shrinker in debugfs/shrinker although CONFIG_SHRINKER_DEBUG is on"
	shrinker_was=$(cat /sys/module/zswap/parameters/shrinker_enabled)
	s0=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	zswap_fill 64 lru_count_now
	[ $((s1 - s0)) -ge 4096 ] || fail "only $((s1 - s0)) pages were stored on node 3"
	read -r _ _ _ _ c3 <<<"$line"
	[ "${c3:-0}" -ge $(((s1 - s0) / 2)) ] ||
		fail "node 3's list holds ${c3:-0} entries; $((s1 - s0)) pages were stored on node 3"
}

# memory.zswap.max counts the pages a cgroup keeps on the compressed-RAM
# node, a page each: a store over the limit first writes back the
# cgroup's entries, those on node 3's list too (a node onlined movable has
# no normal memory, and the walk must not skip it; here node 3 has some).
# spm-probe writes 64 MiB in a 32 MiB cgroup whose zswap may hold 8 MiB:
# with node 3 allowed, all its entries are there, so the writeback that
# makes room (memory.stat's zswpwb) is of node 3's entries.
zswap_max_8m() { limit_32m "$1"; echo 8M >"$1/memory.zswap.max"; }
writeback_now() {
	s1=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	wb=$(awk '$1 == "zswpwb" { print $2 }' "$CG/spm-zswap/memory.stat")
	st1=$(awk '$1 == "zswpout" { print $2 }' /proc/vmstat)
	echo "memory.zswap.max 8M: memory.zswap.current $(cat "$CG/spm-zswap/memory.zswap.current")," \
		"zswpwb ${wb:-none}, $((s1 - s0)) pages on node 3, $((st1 - st0)) zswap stores"
}

case_zswap_max_writes_back_spm_entries() {
	local s0 s1 wb st0 st1
	has_config ZSWAP_SPM || skip "CONFIG_ZSWAP_SPM is off in this config"
	s0=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	st0=$(awk '$1 == "zswpout" { print $2 }' /proc/vmstat)
	zswap_fill 64 writeback_now zswap_max_8m
	[ $((st1 - st0)) -ge 2048 ] || fail "zswap stored only $((st1 - st0)) pages: the limit was never reached"
	[ "${wb:-0}" -gt 0 ] || fail "no entry of the cgroup was written back to make room under memory.zswap.max"
	[ $((s1 - s0)) -le 2048 ] || fail "$((s1 - s0)) pages stay on node 3 for a cgroup whose zswap may hold 2048"
}

# The pool limit (max_pool_percent) is about zpool memory, which entries
# kept on the compressed-RAM node do not use: the worker that writes
# entries back when the pool is over its limit leaves them alone. spm-probe
# holds 64 MiB in a cgroup allowed node 3 (its entries are there); a
# second cgroup, without node 3, writes 23 MB of text to a tmpfs in 16
# MiB, so that some 2,800 pages go to the zpool (the zpool's memory is
# charged to the cgroup too: at 8 MiB it ran out of memory). With the
# limit at 0, the worker must write back a quarter of those, and no entry
# of node 3 (spm_stored_pages does not fall; spm-probe's zswpwb is only
# printed: an entry node 3 refused sits in the zpool, and may go). A
# worker that walks node 3's list too wrote back 306 and 546 in 200
# reclaims where ours needs 2 to 4 (see pool_limit_now).
pool_limit_now() {
	local pool=$CG/spm-pool pct wb_pool0
	s0=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	mkdir -p "$pool" /tmp/spm-pool
	echo 0-2 >"$pool/cpuset.mems"
	echo 16M >"$pool/memory.max"
	mount -t tmpfs spm-pool /tmp/spm-pool
	(echo 0 >"$pool/cgroup.procs" && exec seq 1 3000000 >/tmp/spm-pool/seq)
	pool_pages=$(awk '$1 == "zswapped" { print int($2 / 4096) }' "$pool/memory.stat")
	wb_pool0=$(awk '$1 == "zswpwb" { print $2 }' "$pool/memory.stat")
	hit0=$(cat /sys/kernel/debug/zswap/pool_limit_hit)
	pct=$(cat /sys/module/zswap/parameters/max_pool_percent)
	echo 0 >/sys/module/zswap/parameters/max_pool_percent
	# Each store over the limit queues the worker, and a run of it ends
	# after 16 walks that wrote nothing back: a new entry is passed over
	# once (its second chance), so it takes many runs to get to the
	# writeback, and a worker that also passes over node 3's entries gets
	# there much later. Stores come from reclaiming the tmpfs cgroup, 1 MiB
	# at a time, until a quarter of its entries are written back (at most
	# 200 times: a hang guard).
	for ((reclaims = 0; reclaims < 200; reclaims++)); do
		wb_pool=$(awk '$1 == "zswpwb" { print $2 }' "$pool/memory.stat")
		[ "$wb_pool" -lt $((wb_pool0 + pool_pages / 4)) ] || break
		echo 1M >"$pool/memory.reclaim" 2>/dev/null || true
	done
	echo "$pct" >/sys/module/zswap/parameters/max_pool_percent
	wb_pool=$((wb_pool - wb_pool0))
	hit1=$(cat /sys/kernel/debug/zswap/pool_limit_hit)
	wb_spm=$(awk '$1 == "zswpwb" { print $2 }' "$CG/spm-zswap/memory.stat")
	s1=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	echo "pool limit hit $((hit1 - hit0)) times, $reclaims reclaims; the tmpfs cgroup had $pool_pages pages in zswap, $wb_pool written back;" \
		"spm-probe's cgroup: $wb_spm written back, node 3 holds $s0 -> $s1 pages"
	umount /tmp/spm-pool
	rmdir "$pool"
}

limit_32m_owner_mems() { limit_32m "$1"; owner_mems "$1"; }
case_pool_limit_leaves_spm_entries() {
	local MEMS=0-3 s0 s1 hit0 hit1 pool_pages wb_pool wb_spm reclaims
	has_config ZSWAP_SPM || skip "CONFIG_ZSWAP_SPM is off in this config"
	zswap_fill 64 pool_limit_now limit_32m_owner_mems
	[ "$s0" -ge 4096 ] || fail "only $s0 pages were on node 3"
	[ "$pool_pages" -ge 1024 ] || fail "the tmpfs cgroup put only $pool_pages pages in zswap"
	[ $((hit1 - hit0)) -gt 0 ] || fail "the pool limit was never hit"
	[ "$wb_pool" -ge $((pool_pages / 4)) ] ||
		fail "the pool-limit worker wrote back only $wb_pool of the tmpfs cgroup's $pool_pages entries in $reclaims reclaims"
	[ "$s1" -ge "$s0" ] || fail "the pool-limit worker wrote back $((s0 - s1)) entries kept on node 3"
}

# Sum of the high watermarks of node $1's zones, in kB.
node_high_kb() {
	awk -v node="$1" '/^Node / { z = ($2 == node ",") } z && $1 == "high" { s += $2 } END { print s * 4 }' /proc/zoneinfo
}

# Free pages of node $1 held in the per-CPU lists of its zones, in kB: they
# are not in MemFree, which counts the buddy allocator's free pages only.
node_pcp_kb() {
	awk -v node="$1" '/^Node / { z = ($2 == node ",") } z && $1 == "count:" { s += $2 } END { print s * 4 }' /proc/zoneinfo
}

# The compressed-RAM node takes pages only down to the high watermarks of
# its zones: nothing reclaims an SPM node, and the device needs room for
# pages that compress worse than those it holds. All of node 3's memory
# blocks but the last are offlined (nothing is stored there between
# cases), then a 32 MiB memcg writes 192 MiB: zswap must store on node 3
# until it is full, refuse the rest (counted in spm_refused_full) and
# compress it instead, and node 3's free memory (with the pages that sit
# on per-CPU lists, which MemFree leaves out) must stay above its high
# watermark; every page must come back intact. Under KASAN the fill takes
# minutes; the non-debug configs run it.
node3_when_full() {
	free=$(node_free_kb 3) high=$(node_high_kb 3) pcp=$(node_pcp_kb 3)
	r1=$(cat /sys/kernel/debug/zswap/spm_refused_full)
	s1=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	# shellcheck disable=SC2031 # r0 is set by the caller, not in a subshell
	echo "node 3 (one block online): MemFree $free kB and $pcp kB on per-CPU lists, high watermarks $high kB;" \
		"zswap: $s1 pages on node 3, $((r1 - r0)) stores refused"
}

case_zswap_full_node_refuses() {
	local m free high pcp r0 r1 s1 bpages blocks=()
	has_config ZSWAP_SPM || skip "CONFIG_ZSWAP_SPM is off in this config"
	! has_config KASAN || skip "filling node 3 through zswap takes minutes under KASAN; the non-debug configs run this case"
	for m in /sys/devices/system/node/node3/memory[0-9]*; do blocks+=("$m"); done
	[ "${#blocks[@]}" -ge 2 ] || fail "node 3 has ${#blocks[@]} memory blocks, the case wants two or more"
	# shellcheck disable=SC2064 # the blocks are known now
	trap "for m in ${blocks[*]}; do [ \"\$(cat \$m/state)\" = online ] || echo online_movable >\$m/state; done" EXIT
	for m in "${blocks[@]:0:${#blocks[@]}-1}"; do
		echo offline >"$m/state" || fail "cannot offline $m: something is stored on node 3"
	done
	r0=$(cat /sys/kernel/debug/zswap/spm_refused_full) || fail "no zswap/spm_refused_full in debugfs"
	zswap_fill 192 node3_when_full
	bpages=$(($(printf '%d' "0x$(cat /sys/devices/system/memory/block_size_bytes)") / 4096))
	[ "$s1" -ge $((bpages * 8 / 10)) ] || fail "only $s1 pages were stored on node 3's block of $bpages pages"
	[ $((r1 - r0)) -gt 0 ] || fail "zswap refused no store although node 3 was full"
	# each CPU may take one page between the check and its allocation
	[ $((free + pcp + 4 * $(nproc))) -ge "$high" ] ||
		fail "node 3 went below its high watermark: $free kB free, $pcp kB on per-CPU lists, $high kB high"
}

# Offlining the compressed-RAM node's memory while zswap holds pages on it
# (the way daxctl offline-memory or a kmem unbind starts). Those pages are
# neither on an LRU list nor movable: the offline cannot move them. It
# must end (fail with EBUSY, or succeed having moved them), not retry
# until a signal; and every page must read back intact afterwards. Each
# attempt has a hang guard of 60 s; the blocks offlined are onlined again.
offline_node3_now() {
	local m t0 msg
	s1=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	echo "zswap: $s1 pages on node 3"
	for m in /sys/devices/system/node/node3/memory[0-9]*; do
		[ "$(cat "$m/state")" = online ] || continue
		t0=$SECONDS
		if msg=$( (timeout -s INT 60 bash -c "echo offline >$m/state") 2>&1); then
			offlined+=("$m")
			msg=offlined
		fi
		echo "$(basename "$m"): ${msg##*: } after $((SECONDS - t0)) s"
		case $msg in
		offlined | *"Device or resource busy"*) ;;
		*) hung="$(basename "$m"): $msg"; break ;;
		esac
	done
	for m in "${offlined[@]}"; do echo online_movable >"$m/state"; done
}

case_offline_with_live_entries_ends() {
	local s1 offlined=() hung=''
	has_config ZSWAP_SPM || skip "CONFIG_ZSWAP_SPM is off in this config"
	zswap_fill 64 offline_node3_now
	[ "$s1" -ge 4096 ] || fail "only $s1 pages were on node 3 when its memory was offlined"
	[ -z "$hung" ] || fail "offlining did not end: $hung"
}

# A page zswap kept on the compressed-RAM node is cleared before it is
# freed: once the node's memory is given back to device-dax (offlined and
# kmem unbound, as `daxctl reconfigure-device --mode=devdax` does), no
# page of the device may hold what spm-probe wrote through zswap. Then the
# device goes back to kmem as an SPM node for the groups after this one.
spm_stored() { s1=$(cat /sys/kernel/debug/zswap/spm_stored_pages); echo "zswap: $s1 pages on node 3"; }

case_freed_entries_leave_no_data() {
	local dax s1 out mib
	has_config ZSWAP_SPM || skip "CONFIG_ZSWAP_SPM is off in this config"
	dax=$(dax3)
	zswap_fill 64 spm_stored
	[ "$s1" -ge 4096 ] || fail "only $s1 pages were stored on node 3"
	# shellcheck disable=SC2064 # the device is known now
	trap "dax_to_kmem $dax && online_node_movable 3" EXIT
	dax_to_devdax "$dax" || fail "cannot give $dax back to device-dax"
	mib=$(($(cat "$DAXS/$dax/size") >> 20))
	out=$(/guest/bin/spm-probe leftover "/dev/$dax" "$mib" 2>&1) || fail "spm-probe leftover failed: $out"
	echo "/dev/$dax, $mib MiB: $out"
	trap - EXIT
	{ dax_to_kmem "$dax" && online_node_movable 3; } || fail "cannot give $dax back to kmem"
	[ "$(cat /sys/devices/system/node/node3/spm_purpose)" = "$(purpose)" ] ||
		fail "node 3 came back as '$(cat /sys/devices/system/node/node3/spm_purpose)', not an SPM node of purpose $(purpose)"
	grep -Eq '^pages [1-9][0-9]* nonzero [0-9]+ filled 0$' <<<"$out" ||
		fail "pages of the device still hold what was swapped out: $out"
}

# The compressed-RAM device's memory can go bad like any memory. A page
# of it that memory-failure handling has marked poisoned (here through
# /sys/devices/system/memory/hard_offline_page, as after a machine check)
# is never read: swapping in what zswap kept there fails with SIGBUS, and
# every other page comes back intact. It fails again on a second read,
# after the failed swap-cache page has been reclaimed: the entry must stay
# in zswap, or the swap-in would read the swap slot, which holds whatever
# the disk had. spm-probe writes 64 MiB in a 32 MiB memcg; then the first
# page of node 3 that the kernel holds (zswap's: nothing else allocates
# there) is marked, the free pages before it taken out of use. Last in
# the group: those pages stay out of use.
poison_one_now() {
	local m idx bpages out
	bpages=$(($(printf '%d' "0x$(cat /sys/devices/system/memory/block_size_bytes)") / 4096))
	s1=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	for m in /sys/devices/system/node/node3/memory[0-9]*; do
		[ "$(cat "$m/state")" = online ] || continue
		idx=${m##*memory}
		out=$(/guest/bin/spm-probe poison-first $((idx * bpages)) "$bpages") || fail "spm-probe poison-first: $out"
		echo "$(basename "$m"): $out"
		read -r _ pfn _ _ _ poisoned <<<"$out"
		[ "$pfn" -lt 0 ] || break
	done
	echo "zswap: $s1 pages on node 3"
}

# the failed page, not uptodate in the swap cache, is reclaimed too
reclaim_64m() { echo 64M >"$CG/spm-zswap/memory.reclaim" 2>/dev/null || true; }

case_poisoned_spm_page_not_read() {
	local s1 pfn=-1 poisoned=0 read1 read2
	has_config ZSWAP_SPM || skip "CONFIG_ZSWAP_SPM is off in this config"
	has_config MEMORY_FAILURE || skip "no memory-failure handling to mark a page poisoned (CONFIG_MEMORY_FAILURE): the spm config has it"
	zswap_fill 64 poison_one_now limit_32m reclaim_64m
	[ "$s1" -ge 4096 ] || fail "only $s1 pages were stored on node 3"
	[ "$pfn" -ge 0 ] || fail "no page of node 3 in use although zswap stored $s1 there"
	[ "$poisoned" = 1 ] || fail "pfn $pfn was not marked poisoned"
	[[ $read1 =~ bad\ 0\ unreadable\ 1\ sigbus\ 1$ ]] ||
		fail "first read: $read1 (one page must be unreadable and raise SIGBUS, none be wrong)"
	[[ $read2 =~ bad\ 0\ unreadable\ 1\ sigbus\ 1$ ]] ||
		fail "second read: $read2 (the same page must fail again, none be wrong)"
}

# Handing the compressed-RAM node's device back while zswap holds pages
# there. daxctl reconfigure-device --mode=devdax offlines the memory
# blocks first, as users run it: that must fail (EBUSY on a block that
# holds zswap's pages) and end, not retry until a signal, leaving the
# device with kmem and those blocks online (blocks it could offline stay
# offline: daxctl does not online them again; the case does). Unbinding
# kmem through sysfs removes no memory that is online (kmem says it cannot
# be hot-removed until the next reboot): the unbind ends, the memory stays
# online, and node 3 stays an SPM node of its purpose. Every page reads
# back intact afterwards. The last case of the group: the device stays
# unbound.
node3_online_blocks() { grep -lx online /sys/devices/system/node/node3/memory[0-9]*/state | wc -l; }
give_back_now() {
	local dax msg t0
	dax=$(dax3)
	s1=$(cat /sys/kernel/debug/zswap/spm_stored_pages)
	online0=$(node3_online_blocks)
	echo "zswap: $s1 pages on node 3, $online0 memory blocks online"
	t0=$SECONDS
	if msg=$(timeout -s INT 60 daxctl reconfigure-device --mode=devdax --force "$dax" 2>&1); then
		daxctl_rc=0
	else
		daxctl_rc=$?
	fi
	online1=$(node3_online_blocks)
	echo "daxctl reconfigure-device --mode=devdax: exit $daxctl_rc after $((SECONDS - t0)) s," \
		"$online1 blocks online: $(tail -n 1 <<<"$msg")"
	kmem1=no
	[ ! -e "/sys/bus/dax/drivers/kmem/$dax" ] || kmem1=yes
	online_node_movable 3
	dmesg -C
	t0=$SECONDS
	if msg=$( (timeout -s INT 60 bash -c "echo $dax >/sys/bus/dax/drivers/kmem/unbind") 2>&1); then
		unbind_rc=0
	else
		unbind_rc=$?
	fi
	online2=$(node3_online_blocks)
	purpose2=$(cat /sys/devices/system/node/node3/spm_purpose)
	echo "kmem unbind: exit $unbind_rc after $((SECONDS - t0)) s${msg:+: $msg}; $online2 blocks online," \
		"node 3's purpose $purpose2; $(dmesg | grep -c 'cannot be hotremoved') ranges left in place"
}

case_give_back_with_live_entries_ends() {
	local s1 online0 online1 online2 daxctl_rc kmem1 unbind_rc purpose2
	has_config ZSWAP_SPM || skip "CONFIG_ZSWAP_SPM is off in this config"
	zswap_fill 64 give_back_now
	[ "$s1" -ge 4096 ] || fail "only $s1 pages were on node 3"
	[ "$daxctl_rc" != 124 ] || fail "daxctl reconfigure-device did not end in 60 s"
	[ "$daxctl_rc" != 0 ] || fail "daxctl reconfigure-device --mode=devdax succeeded with zswap's pages on the node"
	[ "$online1" -ge 1 ] || fail "daxctl offlined every block of node 3 with $s1 pages of zswap on it"
	[ "$kmem1" = yes ] || fail "the failed reconfigure left the device without kmem"
	[ "$unbind_rc" = 0 ] || fail "the kmem unbind did not end well (exit $unbind_rc)"
	[ "$online2" = "$online0" ] || fail "after the unbind, $online2 of $online0 blocks are online"
	[ "$purpose2" = "$(purpose)" ] || fail "node 3's purpose is '$purpose2' after the unbind, with its memory online"
}

ktap_main "$@"
