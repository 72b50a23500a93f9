#!/bin/bash
# Hot pages on the slow node are promoted to the top tier by NUMA
# balancing mode 2 and cold ones stay. On a kernel without PGHOT this is
# upstream's promotion (the baseline); with PGHOT, mode 2 reports hint
# faults to pghot and kmigrated promotes, so the pghot counters must move.
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

DEADLINE_MS=60000
# kmigrated visits only records that became ready: about one per promoted
# page (1.0 in every config so far). Issue 14 asks for at most 64; a walk
# of every record of a flagged section gave exactly 64.0 in the
# rate-limited case (2 sections, 2 passes), so the bound is tighter.
VISITED_PER_PROMOTED_MAX=8

setup_numab2() {
	echo 2 >/proc/sys/kernel/numa_balancing
	if has_config PGHOT; then
		echo 1 >/proc/sys/vm/pghot_record_hintfaults_enable
	fi
}

# promoted MODE HOT COLD: the hot set reaches 95% on the top tier before
# the deadline, no cold page moves, and the promotion counters agree.
promoted() {
	local mode=$1 before_promote before_hint before_visit
	setup_numab2
	before_promote=$(vmstat pgpromote_success)
	before_hint=$(vmstat pghot_recorded_hintfaults)
	before_visit=$(vmstat pghot_kmigrated_visited)
	promote_watch -m "$mode" -n "$2" -c "$3" -t "$DEADLINE_MS"
	echo "promoted $PW_HOT_TOP/$PW_HOT hot pages in $PW_MS ms; cold pages promoted: $PW_COLD_TOP/$PW_COLD"
	[ $((PW_HOT_TOP * 100)) -ge $((PW_HOT * 95)) ] ||
		fail "only $PW_HOT_TOP of $PW_HOT hot pages promoted within ${DEADLINE_MS} ms"
	[ "$PW_COLD_TOP" = 0 ] || fail "$PW_COLD_TOP cold pages were promoted"
	local promoted=$(($(vmstat pgpromote_success) - before_promote))
	echo "pgpromote_success +$promoted"
	[ "$promoted" -ge "$PW_HOT_TOP" ] ||
		fail "pgpromote_success moved by $promoted, less than the $PW_HOT_TOP pages seen promoted"
	[ "$promoted" -le "$PW_HOT" ] ||
		fail "pgpromote_success moved by $promoted, more than the $PW_HOT hot pages"
	if has_config PGHOT; then
		local visited=$(($(vmstat pghot_kmigrated_visited) - before_visit))
		echo "pghot_recorded_hintfaults +$(($(vmstat pghot_recorded_hintfaults) - before_hint))," \
			"pghot_kmigrated_visited +$visited"
		[ "$(vmstat pghot_recorded_hintfaults)" -gt "$before_hint" ] ||
			fail "pghot_recorded_hintfaults did not move"
		[ "$visited" -gt 0 ] || fail "pghot_kmigrated_visited did not move"
		# kmigrated's work follows the hot pages, not the size of the
		# sections they sit in (a 128 MiB section is 32768 records).
		[ "$visited" -le $((promoted * VISITED_PER_PROMOTED_MAX)) ] ||
			fail "kmigrated visited $visited records for $promoted promoted pages," \
				"more than $VISITED_PER_PROMOTED_MAX per page"
	fi
}

case_anon_hot_set_promoted() { promoted anon 2048 2048; }

case_file_shared_mapping_promoted() { promoted file 1024 1024; }

# Under a low promotion rate limit (4 MB/s) hot pages become ready a few at a time,
# over many kmigrated passes: each pass must visit the pages that became
# ready, not every record of the sections they are in (which was about
# 500 records per promoted page). On a kernel without PGHOT this is the
# rate-limited promotion of upstream mode 2.
case_rate_limited_promotion() {
	local knob=/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps old
	old=$(cat "$knob")
	# shellcheck disable=SC2064 # restore the value read now
	trap "echo $old >$knob" EXIT
	echo 4 >"$knob"
	promoted anon 2048 2048
}

case_thp_promoted() {
	local before
	before=$(vmstat thp_migration_success)
	promoted thp 2048 1024
	[ "$PW_THP" = 1 ] || fail "the hot set was not backed by huge pages"
	echo "thp_migration_success +$(($(vmstat thp_migration_success) - before))"
	[ "$(vmstat thp_migration_success)" -gt "$before" ] || fail "no THP was migrated whole"
}

# A page bound to the slow node with MPOL_BIND is not promoted by its
# hinting faults; the unbound half of the hot set, accessed the same way,
# is, which shows that the bound half had the chance. Upstream mode 2
# asks the policy in the fault handler; pghot must keep that.
case_bound_pages_stay() {
	setup_numab2
	promote_watch -m anon -n 2048 -B 1024 -c 0 -t "$DEADLINE_MS"
	echo "promoted $PW_HOT_TOP/$PW_HOT free hot pages and $PW_BOUND_TOP/1024 bound ones in $PW_MS ms"
	[ $((PW_HOT_TOP * 100)) -ge $((PW_HOT * 95)) ] ||
		fail "only $PW_HOT_TOP of $PW_HOT unbound hot pages promoted within ${DEADLINE_MS} ms"
	[ "${PW_BOUND_TOP:-x}" = 0 ] || fail "$PW_BOUND_TOP pages bound to node 2 with MPOL_BIND were promoted"
}

# The promoted pages are counted in the memcg of the process that owns
# them, in memory.stat, as upstream mode 2 counts its migrations from the
# fault handler. kmigrated migrates on behalf of nobody, so it must batch
# and count per memcg. Both counters must match the node-wide one.
case_memcg_counts_promotions() {
	local cg=/sys/fs/cgroup/promo-count before
	setup_numab2
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "$cg"
	# shellcheck disable=SC2064 # the path is known now
	trap "rmdir $cg 2>/dev/null || true" EXIT
	before=$(vmstat pgpromote_success)
	# the subshell moves itself into the memcg, then runs the workload
	(echo $BASHPID >"$cg/cgroup.procs" && promote_watch -m anon -n 2048 -c 0 -t "$DEADLINE_MS" &&
	 echo "$PW_HOT_TOP" >/tmp/memcg-hot-top) || fail "the workload failed in the memcg"
	local node memcg_promote memcg_migrated
	node=$(($(vmstat pgpromote_success) - before))
	memcg_promote=$(awk '$1 == "pgpromote_success" { print $2 }' "$cg/memory.stat")
	memcg_migrated=$(awk '$1 == "numa_pages_migrated" { print $2 }' "$cg/memory.stat")
	echo "promoted $(cat /tmp/memcg-hot-top)/2048 hot pages; pgpromote_success: node-wide +$node," \
		"memcg $memcg_promote; memcg numa_pages_migrated $memcg_migrated"
	# it had the chance: pages were promoted
	[ "$node" -gt 0 ] || fail "nothing was promoted"
	[ "${memcg_promote:-0}" -gt 0 ] || fail "memory.stat pgpromote_success of the memcg did not move"
	[ $((memcg_promote * 100)) -ge $((node * 95)) ] ||
		fail "the memcg counted $memcg_promote promoted pages, the node $node"
	[ "${memcg_migrated:-0}" -ge "$memcg_promote" ] ||
		fail "memory.stat numa_pages_migrated ($memcg_migrated) is below pgpromote_success ($memcg_promote)"
}

ktap_main "$@"
