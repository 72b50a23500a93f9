#!/bin/bash
# Stress: the stack's features at once, on a debug kernel, with the data
# of every moving page checked (tiercheck, tests/guest/tiercheck.c).
#
# For STRESS_S seconds, all together:
#  - a checked buffer written from node 2's memory hot-added from a dax
#    device at run time, promoted by hint faults and page-table scans;
#  - the dax device's memory blocks offlined and onlined in a loop while
#    those pages live there;
#  - node 0 held at its high watermark by locked memory for the first
#    half, with a lukewarm checked buffer on it for reclaim to demote;
#  - a checked, compressible buffer in a memory cgroup below its size,
#    swapped out and in through zswap (on the compressed-RAM node where
#    the spm group left one);
#  - the tunables of pghot, klruscand, NUMA balancing and MGLRU toggled;
#  - page allocation and slab failures injected into the kmigrated and
#    klruscand threads from the moment node 0 is let go, until 20 were
#    injected (or the end).
# It passes if every checked word is right, every activity was seen to
# happen (the counters below) and, as for every group, the kernel log has
# no report. Runs after spm (see tests/groups).
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

STRESS_S=${STRESS_S:-60}
# a hang guard: setup, STRESS_S, the checkers' final verification and the
# teardown, under KASAN on TCG
CASE_TIMEOUT=900

SYS=/proc/sys
DBG=/sys/kernel/debug
CG=/sys/fs/cgroup
OUT=/tmp/stress

# The checker must report a word that changed behind its back.
case_checker_reports_a_flipped_word() {
	local out rc=0
	out=$(/guest/bin/tiercheck -s 1 -d 200 -F 3:7) || rc=$?
	echo "$out"
	[ "$rc" = 1 ] || fail "tiercheck exited with $rc, not 1, after a word was flipped"
	grep -q '^corrupt page=3 word=7 ' <<<"$out" || fail "tiercheck did not name page 3 word 7"
	[ "$(grep -c '^corrupt' <<<"$out")" = 1 ] || fail "tiercheck reported more than the flipped word"
	out=$(/guest/bin/tiercheck -s 1 -d 200) || fail "tiercheck failed with nothing flipped: $out"
}

# The counters each activity moves, and how much they grew since
# counters_start (the sum of the ones named).
COUNTERS="pgpromote_success pgdemote_kswapd pgdemote_direct zswpout zswpin pswpout pswpin
pghot_recorded_hintfaults pghot_recorded_pgtscans pghot_kmigrated_passes pgmigrate_fail"
declare -A START
counters_start() { local k; for k in $COUNTERS; do START[$k]=$(vmstat "$k"); done; }
grown() { local k s=0; for k; do s=$((s + $(vmstat "$k") - START[$k])); done; echo "$s"; }

# Offline and online again, one after the other and until $OUT/stop
# exists, the blocks listed in $OUT/blocks. Counts the blocks that went
# offline (and came back) and the tries the kernel refused.
hotplug_loop() {
	local b ok=0 refused=0
	while [ ! -e "$OUT/stop" ]; do
		while read -r b; do
			[ ! -e "$OUT/stop" ] || break
			if timeout 20 bash -c "echo offline >$b/state" 2>/dev/null; then
				ok=$((ok + 1))
			else
				refused=$((refused + 1))
			fi
			[ "$(cat "$b/state")" = online ] || echo online_movable >"$b/state" ||
				echo "cannot online $b again" >>"$OUT/hotplug.err"
			sleep 0.5
		done <"$OUT/blocks"
	done
	echo "offlined=$ok refused=$refused" >"$OUT/hotplug"
}

# Flip the tunables, one at a time, each back after a second, until stop
# (those the kernel or the machine does not have are left out: the IBS
# sample period exists only with IBS hardware).
KNOBS="vm/pghot_record_hintfaults_enable:0 vm/pghot_record_pgtscans_enable:0
vm/pghot_promote_freq_window_ms:200 vm/pghot_promote_rate_limit_MBps:1
vm/klruscand_scan_interval_ms:2000 kernel/numa_balancing:0 lru_gen:n
vm/pghot_record_hwhints_enable:1 vm/ibs_access_sample_period:8192"
knob_file() { if [ "$1" = lru_gen ]; then echo /sys/kernel/mm/lru_gen/enabled; else echo "$SYS/$1"; fi; }
knob_loop() {
	local k f old n=0
	while [ ! -e "$OUT/stop" ]; do
		for k in $KNOBS; do
			[ ! -e "$OUT/stop" ] || break
			f=$(knob_file "${k%%:*}")
			[ -w "$f" ] || continue
			old=$(cat "$f")
			echo "${k#*:}" >"$f" && n=$((n + 1))
			sleep 1
			echo "$old" >"$f" || echo "cannot put $f back to $old" >>"$OUT/knobs.err"
		done
	done
	echo "toggled=$n" >"$OUT/knobs"
}

# Fail page and slab allocations of the kmigrated and klruscand threads
# (task filter), one in ten, until INJECT_WANT failures were injected or
# for $1 seconds at most (the threads allocate only while they migrate);
# count what was injected.
INJECT_WANT=20
inject_faults() {
	local secs=$1 t pids f left_p left_s end
	pids=$(pgrep '^(kmigrated|klruscand)') || { echo "injected_page=0 injected_slab=0 threads=0" >"$OUT/inject"; return; }
	for f in fail_page_alloc failslab; do
		echo Y >"$DBG/$f/task-filter"
		echo 10 >"$DBG/$f/probability"
		echo 1 >"$DBG/$f/interval"
		echo 100000 >"$DBG/$f/times"
		echo 0 >"$DBG/$f/verbose"
		echo N >"$DBG/$f/ignore-gfp-wait"
	done
	# the threads' page allocations for migration are highmem-movable
	# and of order 0 (by default only order 1 and up fail)
	echo N >"$DBG/fail_page_alloc/ignore-gfp-highmem"
	echo 0 >"$DBG/fail_page_alloc/min-order"
	for t in $pids; do echo 1 >"/proc/$t/make-it-fail"; done
	end=$((SECONDS + secs))
	while [ "$SECONDS" -lt "$end" ] && [ ! -e "$OUT/stop" ]; do
		left_p=$(cat "$DBG/fail_page_alloc/times") left_s=$(cat "$DBG/failslab/times")
		[ $((200000 - left_p - left_s)) -lt "$INJECT_WANT" ] || break
		sleep 1
	done
	for t in $pids; do echo 0 >"/proc/$t/make-it-fail" 2>/dev/null || true; done
	left_p=$(cat "$DBG/fail_page_alloc/times") left_s=$(cat "$DBG/failslab/times")
	for f in fail_page_alloc failslab; do echo 0 >"$DBG/$f/probability"; done
	echo "injected_page=$((100000 - left_p)) injected_slab=$((100000 - left_s)) threads=$(wc -w <<<"$pids") secs=$((secs - end + SECONDS))" >"$OUT/inject"
}

# While $OUT/stop does not exist: the most pages zswap held on SPM nodes
# at once (sampled every second; the entries are gone when the buffers
# are freed).
spm_watch() {
	local f=$DBG/zswap/spm_stored_pages v max=0
	while [ ! -e "$OUT/stop" ]; do
		v=$(cat "$f" 2>/dev/null || echo 0)
		[ "$v" -le "$max" ] || max=$v
		sleep 1
	done
	echo "max=$max" >"$OUT/spm"
}

# The field $2 of tiercheck's result line in file $1.
result_of() { sed -n "s/^result .* $2=\([0-9]*\).*/\1/p" "$1"; }

case_everything_at_once() {
	has_config PGHOT || skip "no pghot in this config"
	local dax k ms=$((STRESS_S * 1000)) rc=0 words=0 moved
	mountpoint -q "$DBG" || mount -t debugfs none "$DBG"
	rm -rf "$OUT"
	mkdir -p "$OUT"

	# node 2's dax range as movable memory: node 2's first choice for
	# user pages from now on
	dax=$(devdax_on_node 2) || fail "cannot make a devdax device on node 2"
	dax_to_kmem "$dax" || fail "kmem did not take $dax"
	online_node_movable 2 || fail "cannot online $dax's memory on node 2"
	dax_blocks "$dax" >"$OUT/blocks"
	echo "$dax: $(wc -l <"$OUT/blocks") memory blocks on node 2"
	[ -s "$OUT/blocks" ] || fail "no memory block came from $dax"

	# every source on
	echo 2 >"$SYS/kernel/numa_balancing"
	echo 1 >"$SYS/vm/pghot_record_hintfaults_enable"
	[ ! -w "$SYS/vm/pghot_record_pgtscans_enable" ] || echo 1 >"$SYS/vm/pghot_record_pgtscans_enable"
	echo true >/sys/kernel/mm/numa/demotion_enabled
	echo Y >/sys/module/zswap/parameters/enabled
	echo +memory >"$CG/cgroup.subtree_control"
	mkdir -p "$CG/stress"
	echo 12M >"$CG/stress/memory.max"
	counters_start

	# the workloads, each for STRESS_S: first the lukewarm buffer on node
	# 0, then node 0 held full around it
	/guest/bin/tiercheck -s 8 -n 0 -t 1 -p 2000 -d "$ms" -r 2 >"$OUT/demoted" 2>&1 &
	local c2=$!
	wait_for 120 grep -q '^setup' "$OUT/demoted" || fail "tiercheck (demoted) did not start: $(cat "$OUT/demoted")"
	/guest/bin/hold-node 0 >"$OUT/hold" 2>&1 &
	local hold=$!
	wait_for 120 grep -q '^held' "$OUT/hold" || fail "hold-node did not fill node 0: $(cat "$OUT/hold")"
	/guest/bin/tiercheck -s 16 -n 2 -t 1 -T 10 -d "$ms" -r 1 >"$OUT/promoted" 2>&1 &
	local c1=$!
	(echo 0 >"$CG/stress/cgroup.procs" && exec /guest/bin/tiercheck -s 32 -t 1 -z -d "$ms" -r 3) >"$OUT/swapped" 2>&1 &
	local c3=$!
	hotplug_loop &
	local hp=$!
	knob_loop &
	local kn=$!
	spm_watch &
	local sw=$!
	sleep $((STRESS_S / 3))
	# node 0 let go: promotion resumes, and its allocations meet the
	# injected failures
	inject_faults $((STRESS_S * 2 / 3)) &
	local inj=$!
	kill "$hold"
	wait "$hold" || true
	for d in $c1 $c2 $c3; do wait "$d" || rc=1; done
	touch "$OUT/stop"
	# their results are in their files
	wait "$hp" "$kn" "$inj" "$sw" || true

	for k in promoted demoted swapped; do
		echo "== $k: $(grep '^setup' "$OUT/$k")"
		grep -E '^(corrupt|result)' "$OUT/$k" || { tail -n 5 "$OUT/$k"; fail "tiercheck ($k) printed no result"; }
		words=$((words + $(result_of "$OUT/$k" verified)))
	done
	[ "$rc" = 0 ] || fail "a checked buffer lost data (corrupt lines above)"
	echo "words verified: $words"
	echo "hold: $(tr '\n' ' ' <"$OUT/hold")"
	echo "counters:$(for k in $COUNTERS; do echo -n " $k=$(grown "$k")"; done)"
	echo "hotplug: $(cat "$OUT/hotplug") $(cat "$OUT/hotplug.err" 2>/dev/null)"
	echo "knobs: $(cat "$OUT/knobs") $(cat "$OUT/knobs.err" 2>/dev/null)"
	echo "inject: $(cat "$OUT/inject")"
	echo "zswap: at most $(sed -n 's/^max=//p' "$OUT/spm") pages at once on SPM nodes"

	# every activity ran
	moved=$(result_of "$OUT/promoted" moves)
	[ "${moved:-0}" -gt 0 ] || fail "no page of the promoted buffer was seen to move"
	[ "$(grown pghot_recorded_hintfaults)" -gt 0 ] || fail "pghot recorded no hint fault"
	[ "$(grown pghot_recorded_pgtscans)" -gt 0 ] || fail "pghot recorded no page-table scan"
	[ "$(grown pgpromote_success)" -gt 0 ] || fail "nothing was promoted"
	[ "$(grown pgdemote_kswapd pgdemote_direct)" -gt 0 ] || fail "nothing was demoted"
	[ "$(grown zswpout)" -gt 0 ] || fail "nothing was swapped out through zswap"
	[ "$(grown zswpin pswpin)" -gt 0 ] || fail "nothing was swapped in"
	# where the spm group left a compressed-RAM node, zswap used it
	if [ "$(cat /sys/devices/system/node/node3/spm_purpose 2>/dev/null)" = compressed_ram ]; then
		grep -q 'max=[1-9]' "$OUT/spm" || fail "zswap stored nothing on the compressed-RAM node 3"
	fi
	grep -q 'offlined=[1-9]' "$OUT/hotplug" || fail "no memory block went offline"
	[ ! -s "$OUT/hotplug.err" ] || fail "a block did not come back online"
	grep -q 'toggled=[1-9]' "$OUT/knobs" || fail "no tunable was toggled"
	[ ! -s "$OUT/knobs.err" ] || fail "a tunable could not be put back"
	grep -Eq 'injected_page=[1-9]|injected_slab=[1-9]' "$OUT/inject" || fail "no failure was injected"

	# give the device back to device-dax, as the group found the range
	dax_to_devdax "$dax" || fail "cannot give $dax back to device-dax"
	rmdir "$CG/stress" 2>/dev/null || true
}

ktap_main "$@"
