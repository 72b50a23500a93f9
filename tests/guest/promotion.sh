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

ktap_main "$@"
