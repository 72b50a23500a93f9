#!/bin/bash
# Node 3's reserved range, turned into devdax and onlined as system RAM
# with dax kmem at run time, becomes a lower-tier node, and hot pages on it
# are promoted: by upstream NUMA balancing mode 2 on a stock kernel, by
# pghot (which must start tracking the new node) with PGHOT.
# Run last: node 3 stays online afterwards.
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

CASE_TIMEOUT=300 # onlining node 3 plus a 60 s promotion deadline, under TCG

# Seconds since the previous step, printed as each step ends: when the case
# times out, the steps printed so far say where the time went.
STEP_T=$SECONDS
step_done() {
	echo "step $1: $((SECONDS - STEP_T)) s"
	STEP_T=$SECONDS
}

# MemTotal, MemFree and the kernel's unreclaimable slab plus vmalloc
# memory (where kmalloc, large kmalloc and vmalloc allocations show) less
# kernel stacks (a new node's kmigrated thread), in kB
meminfo_now() {
	awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 } /^(SUnreclaim|VmallocUsed):/ { k += $2 }
		/^KernelStack:/ { k -= $2 } END { print t, f, k }' /proc/meminfo
}

# devdax on node 3's pmem range, handed to kmem, every block online. Sets
# ONLINE_COST_KB and ONLINE_GIB_X1000: how much the kernel's own memory
# (unreclaimable slab and vmalloc, less stacks) grew while the memory came
# online, and how much memory came online. (MemFree is no measure of it:
# on pristine, free memory grew by 1.4 to 5 MB more than the memory added.)
online_node3() {
	local dax t0 f0 k0 t1 f1 k1
	dax=$(devdax_on_node 3) || fail "cannot make a devdax device on node 3"
	step_done "devdax device $dax on node 3"
	dax_to_kmem "$dax" || fail "kmem did not take $dax"
	step_done "kmem took $dax"
	read -r t0 f0 k0 < <(meminfo_now)
	online_node_movable 3 || fail "cannot online node 3's memory"
	read -r t1 f1 k1 < <(meminfo_now)
	step_done "node 3 memory online"
	grep MemTotal /sys/devices/system/node/node3/meminfo
	[ "$t1" -gt "$t0" ] || fail "MemTotal did not grow when node 3 came online"
	ONLINE_COST_KB=$((k1 - k0))
	ONLINE_ADDED_KB=$((t1 - t0))
	echo "onlining added $((t1 - t0)) kB of memory and $((f1 - f0)) kB of free memory;" \
		"unreclaimable slab and vmalloc memory less stacks grew by $ONLINE_COST_KB kB:" \
		"$((ONLINE_COST_KB * 1048576 / ONLINE_ADDED_KB)) kB per GiB onlined"
}

case_dax_node_promoted() {
	local t
	online_node3
	[ "$(cat /sys/devices/system/node/has_memory)" = 0-3 ] || fail "node 3 has no memory after onlining"
	grep . /sys/devices/virtual/memory_tiering/memory_tier*/nodelist
	if has_config PGHOT; then
		t=$(ps -eo comm= | grep '^kmigrated' | sort | paste -sd' ')
		echo "threads: $t"
		[ "$t" = "kmigrated2 kmigrated3" ] || fail "no kmigrated thread for the new node 3"
		echo 1 >/proc/sys/vm/pghot_record_hintfaults_enable
		# issue 14: pghot's records cost at most 0.3 MiB per GiB
		# onlined (1 byte and a bit per 4 KiB page is 0.28), or 1.1
		# MiB with the precise 4-byte records (1.03); onlining costs
		# nothing on pristine (printed there too). Besides, once per
		# node or by chance: a new slab of the 4 KiB kmalloc cache
		# (32 KiB) and the kmigrated thread's task (10 KiB).
		local per_gib=307 extra=42 max
		! has_config PGHOT_RECORD_PRECISE || per_gib=1126
		max=$((per_gib * ONLINE_ADDED_KB / 1048576 + extra))
		[ "$ONLINE_COST_KB" -le "$max" ] ||
			fail "onlining $ONLINE_ADDED_KB kB cost $ONLINE_COST_KB kB, more than $max ($per_gib kB per GiB and $extra kB)"
	fi
	echo 2 >/proc/sys/kernel/numa_balancing
	echo "promote-watch starts; its lines, setup_ms first, follow when it exits"
	promote_watch -m anon -n 2048 -c 1024 -s 3 -t 60000
	step_done "promote-watch (setup and promotion)"
	echo "promoted from node 3: $PW_HOT_TOP/$PW_HOT hot pages in $PW_MS ms; cold: $PW_COLD_TOP/$PW_COLD"
	[ $((PW_HOT_TOP * 100)) -ge $((PW_HOT * 95)) ] || fail "only $PW_HOT_TOP of $PW_HOT hot pages left node 3"
	[ "$PW_COLD_TOP" = 0 ] || fail "$PW_COLD_TOP cold pages left node 3"
}

# klruscand must notice the node that appeared after boot and scan it.
case_dax_node_scanned_by_klruscand() {
	has_config KLRUSCAND || skip "no klruscand in this config"
	echo 0 >/proc/sys/kernel/numa_balancing
	echo 0 >/proc/sys/vm/pghot_record_hintfaults_enable
	echo 1 >/proc/sys/vm/pghot_record_pgtscans_enable
	local k before=()
	local keys=(pghot_recorded_pgtscans pghot_recorded_accesses pghot_kmigrated_visited pgpromote_candidate pgpromote_success)
	for k in "${keys[@]}"; do before+=("$(vmstat "$k")"); done
	# Mapped pages on node 2 too, so that every klruscand pass walks the
	# same processes for node 2 and then for node 3: a walk for one node
	# must not hide the accesses another node's walk looks for. (Its one
	# hot page may be promoted; its cold ones stay on node 2.)
	/guest/bin/promote-watch -m anon -n 1 -c 1024 -s 2 -C 1 -w -t 65000 >/dev/null &
	local holder=$!
	scan_timeline_start
	promote_watch -m anon -n 2048 -c 1024 -s 3 -C 0 -T 10 -t 20000
	scan_timeline_stop
	kill "$holder" 2>/dev/null || true
	echo "promoted from node 3 by page-table scans: $PW_HOT_TOP/$PW_HOT hot pages in $PW_MS ms; cold: $PW_COLD_TOP/$PW_COLD"
	echo -n "meanwhile:"
	for k in "${!keys[@]}"; do echo -n " ${keys[k]} +$(($(vmstat "${keys[k]}") - before[k]))"; done
	echo "; lru_gen enabled $(cat /sys/kernel/mm/lru_gen/enabled); MemFree node 0 $(node_free_kb 0) kB, node 1 $(node_free_kb 1) kB"
	echo 0 >/proc/sys/vm/pghot_record_pgtscans_enable
	[ $((PW_HOT_TOP * 100)) -ge $((PW_HOT * 95)) ] || fail "only $PW_HOT_TOP of $PW_HOT hot pages left node 3"
	[ "$PW_COLD_TOP" = 0 ] || fail "$PW_COLD_TOP cold pages left node 3"
}

ktap_main "$@"
