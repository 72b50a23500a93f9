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

# devdax on node 3's pmem range, handed to kmem, every block online.
online_node3() {
	local dax
	dax=$(devdax_on_node 3) || fail "cannot make a devdax device on node 3"
	step_done "devdax device $dax on node 3"
	dax_to_kmem "$dax" || fail "kmem did not take $dax"
	step_done "kmem took $dax"
	online_node_movable 3 || fail "cannot online node 3's memory"
	step_done "node 3 memory online"
	grep MemTotal /sys/devices/system/node/node3/meminfo
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
