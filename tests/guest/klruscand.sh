#!/bin/bash
# klruscand: MGLRU page-table scanning as pghot's page-table-scan source.
# NUMA balancing is off throughout, so only klruscand can report accesses.
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

# A hang guard: on all-debug (KASAN, UBSAN, lockdep) with the host busy,
# sparse_touches_stay, stale_records_do_not_count and
# memcg_over_limit_swaps_to_zswap ran past 120 s.
CASE_TIMEOUT=300
SYSCTL=/proc/sys/vm
DEADLINE_MS=60000

klruscand_pid() { pgrep -x klruscand; }

# The longest period (ms) from one klruscand pass to the next since the
# last reset_period_max: pghot counts sightings up to two and a half
# periods apart, so how far apart two reads may be and still count
# depends on it.
period_max_file=/sys/kernel/debug/klruscand/period_max_ms
reset_period_max() { echo 0 >"$period_max_file" || fail "cannot reset $period_max_file"; }
period_max() { cat "$period_max_file" || fail "cannot read $period_max_file"; }

only_pgtscans() {
	echo 0 >/proc/sys/kernel/numa_balancing
	echo 0 >"$SYSCTL/pghot_record_hwhints_enable"
	echo 0 >"$SYSCTL/pghot_record_hintfaults_enable"
	echo 1 >"$SYSCTL/pghot_record_pgtscans_enable"
}

case_thread_and_knob() {
	[ -n "$(klruscand_pid)" ] || fail "no klruscand thread"
	echo "vm.klruscand_scan_interval_ms = $(cat "$SYSCTL/klruscand_scan_interval_ms")"
	local old
	old=$(cat "$SYSCTL/klruscand_scan_interval_ms")
	for bad in 0 99 60001 -1 abc; do
		if echo "$bad" 2>/dev/null >"$SYSCTL/klruscand_scan_interval_ms"; then
			fail "vm.klruscand_scan_interval_ms accepted '$bad'"
		fi
	done
	[ "$(cat "$SYSCTL/klruscand_scan_interval_ms")" = "$old" ] || fail "a rejected write changed the interval"
	echo 100 >"$SYSCTL/klruscand_scan_interval_ms"
	echo 60000 >"$SYSCTL/klruscand_scan_interval_ms"
	echo "$old" >"$SYSCTL/klruscand_scan_interval_ms"
	# debugfs period_max_ms takes 0 (a new measurement) and nothing else
	for bad in 1 -1 abc 4294967296; do
		if echo "$bad" 2>/dev/null >"$period_max_file"; then
			fail "$period_max_file accepted '$bad'"
		fi
	done
	reset_period_max
}

case_hot_set_promoted_by_scanning() {
	local before_scan before_promote pid t0 t1 interval
	only_pgtscans
	pid=$(klruscand_pid)
	interval=$(cat "$SYSCTL/klruscand_scan_interval_ms")
	before_scan=$(vmstat pghot_recorded_pgtscans)
	before_promote=$(vmstat pgpromote_success)
	t0=$(cpu_ticks "$pid")
	scan_timeline_start
	promote_watch -m anon -n 2048 -c 2048 -C 0 -T 10 -t "$DEADLINE_MS"
	scan_timeline_stop
	t1=$(cpu_ticks "$pid")
	echo "promoted $PW_HOT_TOP/$PW_HOT hot pages in $PW_MS ms; cold pages promoted: $PW_COLD_TOP/$PW_COLD"
	# a figure to report, not to judge: timing has no place in a test
	echo "klruscand CPU time meanwhile: $((t1 - t0)) ticks of 1/$(getconf CLK_TCK) s" \
		"over about $((PW_MS / interval + 1)) scans (interval $interval ms) of 4096 pages"
	echo "pghot_recorded_pgtscans +$(($(vmstat pghot_recorded_pgtscans) - before_scan))," \
		"pgpromote_success +$(($(vmstat pgpromote_success) - before_promote))"
	[ $((PW_HOT_TOP * 100)) -ge $((PW_HOT * 95)) ] ||
		fail "only $PW_HOT_TOP of $PW_HOT hot pages promoted within ${DEADLINE_MS} ms"
	[ "$PW_COLD_TOP" = 0 ] || fail "$PW_COLD_TOP cold pages were promoted"
	[ "$(vmstat pghot_recorded_pgtscans)" -gt "$before_scan" ] || fail "pghot_recorded_pgtscans did not move"
}

# A page bound to the slow node with MPOL_BIND stays there, however hot the
# scans find it: kmigrated promotes on behalf of nobody and must ask the
# page's policy. Half of the hot set is bound; the other half, accessed
# the same way by the same process, must be promoted, which shows that
# the bound half had the chance.
case_bound_pages_stay() {
	local before_scan
	only_pgtscans
	before_scan=$(vmstat pghot_recorded_pgtscans)
	promote_watch -m anon -n 2048 -B 1024 -c 0 -C 0 -T 10 -t "$DEADLINE_MS"
	echo "promoted $PW_HOT_TOP/$PW_HOT free hot pages and $PW_BOUND_TOP/1024 bound ones in $PW_MS ms;" \
		"pghot_recorded_pgtscans +$(($(vmstat pghot_recorded_pgtscans) - before_scan))"
	[ $((PW_HOT_TOP * 100)) -ge $((PW_HOT * 95)) ] ||
		fail "only $PW_HOT_TOP of $PW_HOT unbound hot pages promoted within ${DEADLINE_MS} ms"
	[ "${PW_BOUND_TOP:-x}" = 0 ] || fail "$PW_BOUND_TOP pages bound to node 2 with MPOL_BIND were promoted"
}

# cold_reads_stay HOW READS PERIOD_MS ARGS...: run promote_watch with ARGS
# (-o ... -R READS) and check that the hot set went up and that the cold
# pages, each read READS times as HOW, stayed. The check means something
# only if the scans saw most of the reads of each cold page
# (once_recorded: every hot page is on top by then, so the records are
# the cold pages'): a pass that comes late sees two reads as one access.
# It also needs every period from one pass to the next to stay under
# PERIOD_MS: past that, the reads are close enough in passes to count by
# design. A run without its chance is run again, at most three times in
# all, and only a run that got it can pass. A cold page promoted fails at
# once.
cold_reads_stay() {
	local how=$1 reads=$2 period=$3 try pmax
	shift 3
	for try in 1 2 3; do
		reset_period_max
		promote_watch "$@"
		pmax=$(period_max)
		[ "$pmax" -gt 0 ] || fail "$period_max_file stayed 0: klruscand made no pass"
		echo "hot pages promoted $PW_HOT_TOP/$PW_HOT; cold pages $how: $PW_COLD," \
			"accesses recorded meanwhile $PW_ONCE_RECORDED, cold pages promoted $PW_COLD_TOP;" \
			"longest period between passes $pmax ms"
		hot_up_cold_stayed "$how"
		if [ "${PW_ONCE_RECORDED:-0}" -lt $((PW_COLD * reads * 2 / 3)) ]; then
			echo "run $try: the scans saw only ${PW_ONCE_RECORDED:-0} of $((PW_COLD * reads)) reads of cold pages, too few for the check to mean anything"
		elif [ "$pmax" -ge "$period" ]; then
			echo "run $try: a period between passes of $pmax ms (under $period ms needed) lets these reads count, so the run cannot tell"
		else
			return 0
		fi
	done
	fail "in 3 runs the scans never saw two thirds of the reads of cold pages with passes under $period ms apart"
}

# A scan sees a page at most once per pass, so counting its sightings
# over the whole frequency window (5 s) makes a page read once every 4 s,
# 8 passes apart at the default interval, as hot as the hot set. Only
# sightings in passes close to each other (two and a half periods, so
# under 4 s while passes start less than 1.6 s apart) may count.
# promote-watch -o 4000 -R 3 reads each cold page three times, 4 s apart,
# once the hot set is on top; once_recorded shows that the scans saw the
# reads.
case_sparse_touches_stay() {
	only_pgtscans
	scan_timeline_start
	cold_reads_stay "read 3 times 4 s apart" 3 1600 \
		-m anon -n 2048 -c 1024 -C 0 -T 10 -o 4000 -R 3 -t "$DEADLINE_MS"
	scan_timeline_stop
}

# A record keeps the time of its last access modulo a clock of a few
# frequency windows (the 1-byte record's: 32 buckets of at most 1/8
# window), so a record left alone for a turn of that clock looks recent
# again, and its old count goes on with the next access. With a 1 s window
# (a 4.1 s clock for the 1-byte record, at HZ=250) each cold page is seen
# on two passes 0.7 s apart, then read again 4.8 s later: that sighting
# must start a new count, not complete the old one, whatever the record
# size (while passes start less than 1.92 s apart, so that two and a half
# periods stay under 4.8 s). once_recorded shows that the scans saw the
# reads.
case_stale_records_do_not_count() {
	local win
	only_pgtscans
	win=$(cat "$SYSCTL/pghot_promote_freq_window_ms")
	# shellcheck disable=SC2064 # restore the value read now
	trap "echo $win >$SYSCTL/pghot_promote_freq_window_ms" EXIT
	echo 1000 >"$SYSCTL/pghot_promote_freq_window_ms"
	cold_reads_stay "read 0.7 s and then 4.8 s apart" 3 1920 \
		-m anon -n 2048 -c 1024 -C 0 -T 10 -o 200 -R 3 -G 700,4800 -t "$DEADLINE_MS"
}

# Passes that start further apart than the frequency window allows (two
# and a half periods over the widest window the record's clock holds:
# 3.3 s for the 1-byte record of a 1 s window) still need three sightings
# on passes in a row while that window holds a period and a quarter: one
# pass slowed down by a busy machine must not make every page it sees
# hot. With a 1.6 s interval and a 1 s window, each cold page read once
# (one sighting) stays, and the hot set, seen on every pass, goes up; the
# periods must stay under 2.6 s, which the window holds.
case_slow_passes_need_three_sightings() {
	local win ival
	only_pgtscans
	win=$(cat "$SYSCTL/pghot_promote_freq_window_ms")
	ival=$(cat "$SYSCTL/klruscand_scan_interval_ms")
	# shellcheck disable=SC2064 # restore the values read now
	trap "echo $win >$SYSCTL/pghot_promote_freq_window_ms; echo $ival >$SYSCTL/klruscand_scan_interval_ms" EXIT
	echo 1000 >"$SYSCTL/pghot_promote_freq_window_ms"
	echo 1600 >"$SYSCTL/klruscand_scan_interval_ms"
	cold_reads_stay "read once" 1 2600 \
		-m anon -n 2048 -c 1024 -C 0 -T 10 -o 200 -R 1 -t "$DEADLINE_MS"
}

# A huge page mapped by PTEs has 512 young entries after one touch. They
# are one access to the folio: one scan must not make it hot (two accesses
# in the window do). pte-thp checks that a scan saw the touch, watches the
# folio for a while, then keeps touching it until it is promoted, which
# shows that it could have been.
case_pte_mapped_thp_not_hot_from_one_scan() {
	local out once loop
	only_pgtscans
	out=$(/guest/bin/pte-thp -t "$DEADLINE_MS") || { echo "$out"; fail "pte-thp failed"; }
	echo "$out"
	grep -q '^setup .* large=1' <<<"$out" || fail "the folio was not a huge page mapped by PTEs"
	once=$(grep '^once' <<<"$out") loop=$(grep '^loop' <<<"$out")
	[ "$(sed -n 's/.* node=\([0-9-]*\).*/\1/p' <<<"$once")" = 2 ] ||
		fail "one touch, seen by one scan, promoted the PTE-mapped huge page: $once"
	[ "$(sed -n 's/.* node=\([0-9-]*\).*/\1/p' <<<"$loop")" != 2 ] ||
		fail "the PTE-mapped huge page was not promoted while it was touched on every scan: $loop"
}

# A pass walks only the PTE tables used since the previous pass, as the
# young bit of the PMD above each one tells, not every table it ever saw
# used. promote-watch maps 256 MiB on node 2 (128 PTE tables), touches it
# once and then leaves it alone while it keeps reading one other page.
# Over ten passes after the first ones, walking the idle tables again on
# each would cost at least 1,280 tables; the tables in use meanwhile (the
# hot page's, and the stacks and code of the processes in the memcg: the
# shell running this, about 17 a pass) cost far less than half of that.
# The passes counter (debugfs) shows that the passes ran.
# klruscand's counters in debugfs (0 if absent)
scan_count() { cat "/sys/kernel/debug/klruscand/$1" 2>/dev/null || echo 0; }
passes_past() { [ "$(scan_count passes)" -ge "$1" ]; }
case_idle_tables_not_walked() {
	local hog p0 t0 p1 t1 pw
	only_pgtscans
	pw=$(mktemp)
	/guest/bin/promote-watch -m anon -n 1 -c 65536 -C 0 -w -t 120000 >"$pw" 2>&1 &
	hog=$!
	# setup done, and two passes since: the first walks saw the tables used
	wait_for 120 grep -q '^setup' "$pw" || { cat "$pw"; fail "promote-watch did not set up"; }
	wait_for 60 passes_past $(($(scan_count passes) + 2)) || fail "klruscand made no pass in 60 s"
	p0=$(scan_count passes) t0=$(scan_count pte_tables)
	wait_for 60 passes_past $((p0 + 10)) || fail "klruscand made fewer than 10 passes in 60 s"
	p1=$(scan_count passes) t1=$(scan_count pte_tables)
	kill "$hog" 2>/dev/null || true
	wait "$hog" 2>/dev/null || true # killed: status 143
	rm -f "$pw"
	echo "over $((p1 - p0)) passes klruscand walked $((t1 - t0)) PTE tables; the idle 256 MiB has 128"
	[ $((t1 - t0)) -le $(((p1 - p0) * 128 / 2)) ] ||
		fail "klruscand walked $((t1 - t0)) PTE tables in $((p1 - p0)) passes: the idle ones on every pass"
}

# With recording off klruscand must not scan: its CPU time over a fixed
# interval, while a process keeps its pages busy, stays near zero.
case_idle_when_recording_disabled() {
	local pid t0 t1 hog
	echo 0 >"$SYSCTL/pghot_record_pgtscans_enable"
	pid=$(klruscand_pid)
	/guest/bin/promote-watch -m anon -n 2048 -c 0 -t 10000 -w >/dev/null &
	hog=$!
	t0=$(cpu_ticks "$pid")
	sleep 8 # the observation interval itself, not a wait for a condition
	t1=$(cpu_ticks "$pid")
	wait "$hog"
	echo "klruscand CPU time with recording off: $((t1 - t0)) ticks in 8 s (USER_HZ $(getconf CLK_TCK))"
	[ $((t1 - t0)) -le 2 ] || fail "klruscand used $((t1 - t0)) ticks while recording was off"
	echo 1 >"$SYSCTL/pghot_record_pgtscans_enable"
}

# Turning MGLRU off and on while klruscand scans a busy process: no crash,
# no splat (the harness fails the boot on any kernel report).
case_mglru_toggled_during_scan() {
	local hog
	only_pgtscans
	echo 100 >"$SYSCTL/klruscand_scan_interval_ms"
	/guest/bin/promote-watch -m anon -n 4096 -c 0 -t 8000 -w >/dev/null &
	hog=$!
	for _ in $(seq 20); do
		echo 0 >/sys/kernel/mm/lru_gen/enabled
		sleep 0.1
		echo 7 >/sys/kernel/mm/lru_gen/enabled
		sleep 0.1
	done
	wait "$hog" || fail "the workload died while MGLRU was toggled"
	echo 500 >"$SYSCTL/klruscand_scan_interval_ms"
	[ -n "$(klruscand_pid)" ] || fail "klruscand is gone"
}

# Reclaim still works with the refactored walker: a memcg pushed over its
# limit swaps to zswap.
case_memcg_over_limit_swaps_to_zswap() {
	local cg=/sys/fs/cgroup/klru-reclaim before
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "$cg"
	echo 32M >"$cg/memory.max"
	before=$(awk '$1 == "zswpout" { print $2 }' "$cg/memory.stat")
	(echo $BASHPID >"$cg/cgroup.procs" && exec memhog -r2 96M >/dev/null) || fail "memhog failed under the limit"
	local out
	out=$(awk '$1 == "zswpout" { print $2 }' "$cg/memory.stat")
	echo "zswpout in the memcg: $before -> $out"
	[ "$out" -gt "${before:-0}" ] || fail "nothing went to zswap"
	rmdir "$cg"
}

ktap_main "$@"
