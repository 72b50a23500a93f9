#!/bin/bash
# Hot pages on the slow node are promoted to the top tier by NUMA
# balancing mode 2 and cold ones stay. On a kernel without PGHOT this is
# upstream's promotion (the baseline); with PGHOT, mode 2 reports hint
# faults to pghot and kmigrated promotes, so the pghot counters must move.
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

DEADLINE_MS=60000

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
		echo "pghot_recorded_hintfaults +$(($(vmstat pghot_recorded_hintfaults) - before_hint))," \
			"pghot_kmigrated_visited +$(($(vmstat pghot_kmigrated_visited) - before_visit))"
		[ "$(vmstat pghot_recorded_hintfaults)" -gt "$before_hint" ] ||
			fail "pghot_recorded_hintfaults did not move"
		[ "$(vmstat pghot_kmigrated_visited)" -gt "$before_visit" ] ||
			fail "pghot_kmigrated_visited did not move"
	fi
}

case_anon_hot_set_promoted() { promoted anon 2048 2048; }

case_file_shared_mapping_promoted() { promoted file 1024 1024; }

case_thp_promoted() {
	local before
	before=$(vmstat thp_migration_success)
	promoted thp 2048 1024
	[ "$PW_THP" = 1 ] || fail "the hot set was not backed by huge pages"
	echo "thp_migration_success +$(($(vmstat thp_migration_success) - before))"
	[ "$(vmstat thp_migration_success)" -gt "$before" ] || fail "no THP was migrated whole"
}

ktap_main "$@"
