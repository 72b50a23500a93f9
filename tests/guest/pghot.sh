#!/bin/bash
# PGHOT's knobs and counters, and that nothing is promoted when no source
# reports accesses. (Promotion itself is in promotion.sh.)
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

SYSCTL=/proc/sys/vm

# write_rejected KNOB VALUE: the write fails with EINVAL and the knob keeps
# its value.
write_rejected() {
	local before out
	before=$(cat "$SYSCTL/$1")
	if out=$(echo "$2" 2>&1 >"$SYSCTL/$1"); then
		fail "vm.$1 accepted '$2'"
	fi
	grep -q 'Invalid argument' <<<"$out" || fail "vm.$1 rejected '$2' with '$out', not EINVAL"
	[ "$(cat "$SYSCTL/$1")" = "$before" ] || fail "vm.$1 changed to $(cat "$SYSCTL/$1") after a rejected write"
}

write_accepted() {
	echo "$2" >"$SYSCTL/$1" || fail "vm.$1 rejected '$2'"
	[ "$(cat "$SYSCTL/$1")" = "$2" ] || fail "vm.$1 reads $(cat "$SYSCTL/$1") after writing $2"
}

case_knobs_and_counters_exist() {
	local k
	for k in pghot_record_hwhints_enable pghot_record_pgtscans_enable \
		pghot_record_hintfaults_enable pghot_promote_freq_window_ms \
		pghot_promote_rate_limit_MBps; do
		[ -f "$SYSCTL/$k" ] || fail "no vm.$k"
		echo "vm.$k = $(cat "$SYSCTL/$k")"
	done
	for k in pghot_recorded_accesses pghot_recorded_hwhints pghot_recorded_pgtscans \
		pghot_recorded_hintfaults pghot_kmigrated_visited pgpromote_success; do
		grep -q "^$k " /proc/vmstat || fail "no $k in /proc/vmstat"
	done
}

# <debugfs>/pghot/record, for looking at a page that is not promoted: a
# PFN of node 2 (tracked) reads back with its node and record, one of
# node 0 (top tier) as untracked; what is not a valid PFN is EINVAL.
case_record_file_shows_a_pfn() {
	local f=/sys/kernel/debug/pghot/record pfn0 pfn2 out bad
	[ -f "$f" ] || fail "no $f"
	pfn0=$(awk '/^Node 0, zone/ { z = 1 } z && $1 == "start_pfn:" { print $2; exit }' /proc/zoneinfo)
	pfn2=$(awk '/^Node 2, zone/ { z = 1 } z && $1 == "start_pfn:" { print $2; exit }' /proc/zoneinfo)
	[ -n "$pfn0" ] && [ -n "$pfn2" ] || fail "no start_pfn of node 0 or 2 in /proc/zoneinfo"
	echo "$pfn2" >"$f" || fail "$f rejected PFN $pfn2 of node 2"
	out=$(cat "$f")
	echo "node 2: $out"
	grep -Eq "^pfn=$(printf '%#x' "$pfn2") node=2 record=0x?[0-9a-f]+ ready=[01] queued=[01] " <<<"$out" ||
		fail "PFN $pfn2 of node 2 reads '$out'"
	echo "$pfn0" >"$f" || fail "$f rejected PFN $pfn0 of node 0"
	out=$(cat "$f")
	echo "node 0: $out"
	[ "$out" = "pfn=$(printf '%#x' "$pfn0") untracked" ] || fail "PFN $pfn0 of node 0 reads '$out'"
	for bad in abc -1 0x 1x 0x7fffffffffffff 123456789012345678901234567890; do
		out=$(echo "$bad" 2>&1 >"$f") && fail "$f accepted '$bad'"
		grep -q 'Invalid argument' <<<"$out" ||
			fail "$f rejected '$bad' with '$out', not EINVAL"
	done
	[ "$(cat "$f")" = "pfn=$(printf '%#x' "$pfn0") untracked" ] || fail "a rejected write changed the PFN"
}

case_kmigrated_per_lower_tier_node() {
	local threads
	threads=$(ps -eo comm= | grep '^kmigrated' | sort | paste -sd' ')
	echo "threads: $threads"
	[ "$threads" = kmigrated2 ] || fail "expected one kmigrated thread, for node 2; got '$threads'"
}

case_sysctl_rejects_bad_input() {
	local k
	for k in pghot_record_hwhints_enable pghot_record_pgtscans_enable pghot_record_hintfaults_enable; do
		write_rejected "$k" 2
		write_rejected "$k" -1
		write_rejected "$k" abc
		write_accepted "$k" 1
		write_accepted "$k" 0
	done
	write_rejected pghot_promote_freq_window_ms 0
	write_rejected pghot_promote_freq_window_ms 60001
	write_rejected pghot_promote_freq_window_ms -5
	write_accepted pghot_promote_freq_window_ms 60000
	write_accepted pghot_promote_freq_window_ms 5000
	write_rejected pghot_promote_rate_limit_MBps -1
	write_rejected pghot_promote_rate_limit_MBps xyz
}

case_rate_limit_alias_follows() {
	local alias=/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps old
	[ -f "$alias" ] || fail "kernel.numa_balancing_promote_rate_limit_MBps is gone"
	old=$(cat "$SYSCTL/pghot_promote_rate_limit_MBps")
	echo 1234 >"$alias"
	[ "$(cat "$SYSCTL/pghot_promote_rate_limit_MBps")" = 1234 ] ||
		fail "the kernel.* alias does not set vm.pghot_promote_rate_limit_MBps"
	echo "$old" >"$SYSCTL/pghot_promote_rate_limit_MBps"
	[ "$(cat "$alias")" = "$old" ] || fail "the alias does not read the pghot value"
}

# Mode 2 on, every source off: the hot set is accessed for a fixed time
# (an observation window, not a wait for a condition) and must stay put.
case_no_source_no_promotion() {
	local before_promote before_rec
	echo 2 >/proc/sys/kernel/numa_balancing
	echo 0 >"$SYSCTL/pghot_record_hwhints_enable"
	echo 0 >"$SYSCTL/pghot_record_pgtscans_enable"
	echo 0 >"$SYSCTL/pghot_record_hintfaults_enable"
	before_promote=$(vmstat pgpromote_success)
	before_rec=$(vmstat pghot_recorded_accesses)
	promote_watch -m anon -n 2048 -c 0 -t 8000 -w
	echo "hot pages promoted with no source: $PW_HOT_TOP/$PW_HOT"
	[ "$PW_HOT_TOP" = 0 ] || fail "$PW_HOT_TOP pages were promoted with every source off"
	[ "$(vmstat pgpromote_success)" = "$before_promote" ] || fail "pgpromote_success moved"
	[ "$(vmstat pghot_recorded_accesses)" = "$before_rec" ] || fail "pghot recorded accesses"
	echo 1 >"$SYSCTL/pghot_record_hintfaults_enable"
}

# Voluntary and involuntary context switches of process $1 so far.
ctxt_switches() { awk '/^(non)?voluntary_ctxt_switches/ { s += $2 } END { print s + 0 }' "/proc/$1/status"; }

# With no source reporting, kmigrated has nothing to do and must not wake
# up at all: it sleeps until a page of its node becomes ready. (It used to
# poll ten times a second, which the window below would show as about 30
# context switches.) Until the node's last records are stale (the
# record's span, at least two and a half windows, after their last access)
# it also wakes every quarter window to clear them, so the window is first
# cut to 100 ms, and the records left by earlier cases are all stale and
# cleared 2 s later (a record's span is at most six windows, 0.6 s, the
# sweep comes every quarter window, and one turn of the 1-byte record's
# new clock takes 0.5 s). No access is recorded during the 3 s window, or it says
# so: then the thread had a reason to run.
case_kmigrated_idle_never_wakes() {
	local pid before after rec win
	echo 0 >/proc/sys/kernel/numa_balancing
	echo 0 >"$SYSCTL/pghot_record_hwhints_enable"
	echo 0 >"$SYSCTL/pghot_record_pgtscans_enable"
	echo 0 >"$SYSCTL/pghot_record_hintfaults_enable"
	win=$(cat "$SYSCTL/pghot_promote_freq_window_ms")
	# shellcheck disable=SC2064 # restore the value read now
	trap "echo $win >$SYSCTL/pghot_promote_freq_window_ms" EXIT
	echo 100 >"$SYSCTL/pghot_promote_freq_window_ms"
	pid=$(pgrep -x kmigrated2) || fail "no kmigrated2 thread"
	sleep 2 # records go stale by definition after this time (see above)
	rec=$(vmstat pghot_recorded_accesses)
	before=$(ctxt_switches "$pid")
	sleep 3
	after=$(ctxt_switches "$pid")
	echo 1 >"$SYSCTL/pghot_record_hintfaults_enable"
	echo "kmigrated2 context switches in a 3 s window with every source off: $((after - before))"
	[ "$(vmstat pghot_recorded_accesses)" = "$rec" ] || fail "accesses were recorded during the window"
	[ "$after" = "$before" ] || fail "kmigrated2 woke up $((after - before)) times with nothing to do"
}

# Upstream mode 2 promotes every page that takes a hinting fault while the
# top tier has plenty of free memory, which it has here: a page read once
# in a minute is promoted like the hot set. With pghot recording hint
# faults the hot threshold (time from the scan that armed the fault to the
# fault) holds then too. promote-watch -o reads each cold page once, well
# after the scan armed it, once the hot set is on top; the faults it
# takes (once_faults) show that the pages had the chance.
case_cold_pages_touched_once_stay() {
	echo 2 >/proc/sys/kernel/numa_balancing
	echo 1 >"$SYSCTL/pghot_record_hintfaults_enable"
	promote_watch -m anon -n 2048 -c 1024 -o 4000 -t 60000
	echo "hot pages promoted $PW_HOT_TOP/$PW_HOT; cold pages read once: $PW_COLD," \
		"hint faults meanwhile $PW_ONCE_FAULTS, cold pages promoted $PW_COLD_TOP"
	[ "${PW_ONCE_FAULTS:-0}" -ge $((PW_COLD / 2)) ] ||
		fail "reading $PW_COLD cold pages once took only ${PW_ONCE_FAULTS:-0} hint faults"
	hot_up_cold_stayed "read once"
}

# Two hint faults make a page hot, each within NUMA balancing's hot
# threshold (1 s) of the scan that armed it. A task scanned too rarely for
# two of its faults to fit in the record's clock gets by with one, which
# must then come within a quarter of the threshold: a page read once, half
# a second after a scan, is no hotter than any cold page that happens to
# be read then. The window is cut to 100 ms: the 1-byte record's clock
# then holds 0.4 s and the precise one 0.6 s, less than two scan periods of
# any task (1 s or more), so one fault has to do. promote-watch -l -a
# allocates the cold pages once the hot set is up and reads each of them
# once, DELAY ms after the scan that armed it. (It used to read them first
# 3 s after the hot set came up, taken to be too late for any threshold;
# but NUMA balancing's access time wraps every 4.1 s in these configs, so
# that round passed or failed the threshold by chance, for all the pages
# at once.) At 500 ms no fault may pass the threshold
# (pghot records the faults that pass it) and no cold page may be
# promoted; right after the scan (0 ms, and the reads take a few ms more),
# well under a quarter, at least half of them pass, which shows that the
# task was in that mode and that its faults could count. Twice in about
# 30 runs, a run right after the scan saw 256 faults and none pass, with
# the scan seen 19 ms before the last read; that run did not get its
# chance (the cause is not known, and is open), so that side is run up to
# three times, and one of them must pass. (Whether
# kmigrated promotes those pages before their records go stale, 0.4 s with
# this window, depends on its back-off, which other cases test: one CI run
# promoted 1 of 256.) The hot set is small, so that the reads of a round
# take a few ms and a scan seldom lands in the middle of one.
case_one_fault_needs_a_quarter_threshold() {
	local win delay try=0
	win=$(cat "$SYSCTL/pghot_promote_freq_window_ms")
	# shellcheck disable=SC2064 # restore the value read now
	trap "echo $win >$SYSCTL/pghot_promote_freq_window_ms" EXIT
	echo 100 >"$SYSCTL/pghot_promote_freq_window_ms"
	echo 2 >/proc/sys/kernel/numa_balancing
	echo 1 >"$SYSCTL/pghot_record_hintfaults_enable"
	for delay in 500 0 0 0; do
		promote_watch -m anon -n 128 -c 256 -o 20 -R 1 -a "$delay" -l -t 60000
		echo "cold pages read ${delay} ms after a scan (${PW_LAST_LAG:-?} ms from seeing it to the" \
			"last read): hint faults $PW_LAST_FAULTS, recorded $PW_LAST_RECORDED," \
			"promoted $PW_COLD_TOP of $PW_COLD"
		[ "$PW_TOUCHED" = "$PW_COLD" ] ||
			fail "promote-watch read ${PW_TOUCHED:-0} of $PW_COLD cold pages: no scan came"
		[ "${PW_LAST_FAULTS:-0}" -ge $((PW_COLD / 2)) ] ||
			fail "reading $PW_COLD cold pages ${delay} ms after a scan took only ${PW_LAST_FAULTS:-0} hint faults"
		if [ "$delay" = 500 ]; then
			[ "${PW_LAST_RECORDED:--1}" -ge 0 ] || fail "promote-watch found no pghot counter"
			[ "$PW_LAST_RECORDED" -le $((PW_COLD / 100)) ] ||
				fail "$PW_LAST_RECORDED hint faults on cold pages read 500 ms after the scan passed the threshold"
			[ "$PW_COLD_TOP" -le $((PW_COLD / 100)) ] ||
				fail "$PW_COLD_TOP of $PW_COLD cold pages read once, 500 ms after the scan, were promoted"
			continue
		fi
		# The faults passing the threshold is what this shows; whether
		# kmigrated gets to the pages within the record's 0.4 s span
		# depends on its back-off, which other cases test.
		try=$((try + 1))
		[ $((${PW_LAST_RECORDED:-0} * 2)) -lt "$PW_COLD" ] || return 0
		echo "run $try right after the scan: only ${PW_LAST_RECORDED:-0} faults passed (open: cause unknown)"
	done
	fail "in $try runs, never half of $PW_COLD hint faults on cold pages read right after the scan passed the threshold"
}

# A record describes the page at its PFN, not whoever gets the frame next.
# Two runs of promote-watch each allocate their cold pages once the hot set
# is up and read each of them once, right after the scan that armed it, so
# that the faults pass the hot threshold: at least half must be recorded.
# (Pages armed long before are no good for this: the access time NUMA
# balancing keeps in page->flags wraps every 4.1 s with NR_CPUS=8, so
# whether a late fault passes is a toss of the dice for all of them at
# once.) With a 60 s window two faults count anywhere in the test, and one
# is not enough. The second run's cold pages take
# mostly the frames the first run's freed (-p shows how many): if a freed
# page's record stayed, their one fault would make them hot and promote
# them. On the stack of stop 19, the bench's 'full' case lost its precision
# to this: the pages of the run before left their records to the next.
# A run in which fewer than half the reads passed the threshold did not
# get its chance (one CI run of all-debug, KASAN under TCG: 464 of 1,024
# passed, 672 ms from seeing the scan to the last read), so it is run
# again, at most three times for each of the two; whatever the run, no
# cold page may be promoted.
case_records_do_not_outlive_their_pages() {
	local win life try pfns=/tmp/records-do-not-outlive.pfns
	win=$(cat "$SYSCTL/pghot_promote_freq_window_ms")
	# shellcheck disable=SC2064 # restore the value read now
	trap "echo $win >$SYSCTL/pghot_promote_freq_window_ms; rm -f $pfns" EXIT
	echo 60000 >"$SYSCTL/pghot_promote_freq_window_ms"
	echo 2 >/proc/sys/kernel/numa_balancing
	echo 1 >"$SYSCTL/pghot_record_hintfaults_enable"
	rm -f "$pfns"
	for life in 1 2; do
		for try in 1 2 3; do
			promote_watch -m anon -n 128 -c 1024 -o 20 -R 1 -a 0 -l -p "$pfns" -t 60000
			echo "run $life, try $try: cold pages read once, right after a scan" \
				"(${PW_LAST_LAG:-?} ms from seeing it to the last read): hint faults" \
				"$PW_ONCE_FAULTS, recorded $PW_ONCE_RECORDED, promoted $PW_COLD_TOP of" \
				"$PW_COLD; frames of the run before's cold pages: ${PW_REUSED:-?}"
			[ "$PW_COLD_TOP" -le $((PW_COLD / 100)) ] ||
				fail "run $life: $PW_COLD_TOP of $PW_COLD cold pages, one fault each recorded, were promoted"
			[ $((${PW_ONCE_RECORDED:-0} * 2)) -lt "$PW_COLD" ] || break
			[ "$try" != 3 ] ||
				fail "run $life: in 3 tries only ${PW_ONCE_RECORDED:-0} of $PW_COLD reads of cold pages right after a scan passed the hot threshold"
		done
	done
	[ $((${PW_REUSED:-0} * 2)) -ge "$PW_COLD" ] ||
		fail "only ${PW_REUSED:-0} of the second run's $PW_COLD cold pages took frames of the run before's"
}

# A page reclaimed while the top tier is full comes back, at its next
# access, wherever there is room: often on the slow node, with no record.
# NUMA balancing without pghot promotes it at its next hint fault, pghot
# waited for two, and NUMA balancing scans a task whose memory looks
# settled only every few tens of seconds (the bench's held case: a quarter
# of the hot set stayed down 20 s and more after the top tier was freed).
# The swap-in fault now counts as an access. promote-watch -S swaps the
# cold set out and reads each page back onto node 2, then reads each once
# more right after the scan that armed it (-l -a 0): two accesses within
# the 60 s window, so the pages must be promoted. The same reads without
# the swap-in promote none (records_do_not_outlive_their_pages).
case_swapped_in_pages_count_their_fault() {
	local win
	[ -n "$(swapon --noheadings --show 2>/dev/null)" ] ||
		fail "no swap in the guest (rootfs/init enables /dev/vdb): see the boot log"
	win=$(cat "$SYSCTL/pghot_promote_freq_window_ms")
	# shellcheck disable=SC2064 # restore the value read now
	trap "echo $win >$SYSCTL/pghot_promote_freq_window_ms" EXIT
	echo 60000 >"$SYSCTL/pghot_promote_freq_window_ms"
	echo 2 >/proc/sys/kernel/numa_balancing
	echo 1 >"$SYSCTL/pghot_record_hintfaults_enable"
	# The check means something only if most reads right after a scan
	# passed the hot threshold; on a slow guest (KASAN under TCG) the
	# reads of 1,024 pages may take longer than that. A run without its
	# chance is run again, at most three times in all.
	local try
	for try in 1 2 3; do
		promote_watch -m anon -n 128 -c 1024 -o 20 -R 1 -a 0 -l -S -t 60000
		echo "run $try: cold pages swapped out ${PW_SWAP_OUT:-?}, back on node 2 ${PW_SWAP_BACK:-?}, then" \
			"read once right after a scan: hint faults $PW_ONCE_FAULTS, recorded" \
			"$PW_ONCE_RECORDED, promoted $PW_COLD_TOP of $PW_COLD"
		[ $((${PW_ONCE_RECORDED:-0} * 2)) -lt "$PW_COLD" ] || break
		[ "$try" != 3 ] || fail "in 3 runs only ${PW_ONCE_RECORDED:-0} of $PW_COLD reads right after a scan passed the hot threshold"
	done
	[ $((${PW_SWAP_BACK:-0} * 10)) -ge $((PW_COLD * 9)) ] ||
		fail "only ${PW_SWAP_BACK:-0} of $PW_COLD swapped-out pages came back on node 2"
	[ $((PW_COLD_TOP * 2)) -ge "$PW_COLD" ] ||
		fail "$PW_COLD_TOP of $PW_COLD swapped-in pages, read again after a scan, were promoted: the swap-in did not count"
}

# A hot page whose migration fails keeps its record: kmigrated tries it
# again on a later pass, with no new access needed. splice-hold keeps a
# pipe reference on each of 256 hot pages on node 2 while they are read
# (so every migration fails, which pgmigrate_fail shows), then drops the
# references and leaves the pages alone. The window is 60 s, so that the
# records are still recent when kmigrated's back-off (at most 10 s) ends.
# Upstream mode 2 remembers nothing: this is pghot's own behaviour.
case_failed_migrations_keep_records() {
	local win out held res
	win=$(cat "$SYSCTL/pghot_promote_freq_window_ms")
	# shellcheck disable=SC2064 # restore the value read now
	trap "echo $win >$SYSCTL/pghot_promote_freq_window_ms" EXIT
	echo 60000 >"$SYSCTL/pghot_promote_freq_window_ms"
	echo 2 >/proc/sys/kernel/numa_balancing
	echo 1 >"$SYSCTL/pghot_record_hintfaults_enable"
	out=$(/guest/bin/splice-hold -n 256 -a 4000 -t 30000) || { echo "$out"; fail "splice-hold failed"; }
	echo "$out"
	held=$(grep '^held' <<<"$out") res=$(grep '^result' <<<"$out")
	# it had the chance: the pages were found hot and could not move
	[ "$(sed -n 's/.* failed=\([0-9]*\).*/\1/p' <<<"$held")" -gt 0 ] ||
		fail "no migration failed while the pipe held the pages: $held"
	[ "$(sed -n 's/.* top=\([0-9]*\).*/\1/p' <<<"$held")" -lt 256 ] ||
		fail "every page moved although the pipe held them: $held"
	[ "$(sed -n 's/.* top=\([0-9]*\).*/\1/p' <<<"$res")" -ge 243 ] ||
		fail "fewer than 95% of the pages were promoted once they could move: $res"
}

# A top tier held at its high watermark by locked memory (hold-node) can
# take no page, and nothing on it can be demoted to make room. kmigrated
# must then back off instead of retrying at its own pace, and promote
# nothing much until room is made; once the memory is freed, the hot set
# must be promoted. Hint faults are off until the node is held, so that
# nothing is promoted while the filler is still filling. Node 0's DMA zone
# (16 MiB) stays out of the filler's reach (its lowmem reserve keeps user
# memory out) but takes promotions, so the hot set is larger than that.
# Not run by make check: filling node 0 (about 400 MiB of page clears)
# met QEMU TCG's slow string instructions in one run of nine (an RCU stall
# in clear_page_rep, the vCPU taking 360 ticks in 21 s, and the hot set
# not promoted in time after). Run it with
#   APPEND=stack.held=1 make test CONFIG=pghot ONLY=pghot
HOLD_WINDOW_S=15
HOLD_HOT=16384
case_full_top_tier_backs_off() {
	local pw=/tmp/pw-held.out held=/tmp/hold-node.out pid pw_pid hold_pid
	local passes full visited faults promoted ticks
	grep -qw 'stack.held=1' /proc/cmdline ||
		skip "its 400 MiB fill stalls under TCG now and then; boot with APPEND=stack.held=1 to run it"
	echo 2 >/proc/sys/kernel/numa_balancing
	echo 0 >"$SYSCTL/pghot_record_hintfaults_enable"
	echo 0 >"$SYSCTL/pghot_record_pgtscans_enable"
	echo 0 >"$SYSCTL/pghot_record_hwhints_enable"
	pid=$(pgrep -x kmigrated2) || fail "no kmigrated2 thread"
	# Demotion is off in the guest; with swap off too, kswapd cannot make
	# room on node 0 by swapping out the pages just promoted there (it
	# did: 23,414 pages to zswap in one run, and as many promotions).
	swapoff -a || fail "cannot turn swap off"
	/guest/bin/promote-watch -m anon -n "$HOLD_HOT" -c 0 -C 0 -t 80000 >"$pw" 2>&1 &
	pw_pid=$!
	# shellcheck disable=SC2064 # the PIDs are known now
	trap "kill $pw_pid 2>/dev/null || true; [ -z \"\${hold_pid:-}\" ] || kill \$hold_pid 2>/dev/null || true; wait || true; swapon -a 2>/dev/null || swapon /dev/vdb || true" EXIT
	wait_for 60 grep -q '^setup' "$pw" || { cat "$pw"; fail "promote-watch did not set up"; }
	grep '^setup' "$pw"
	/guest/bin/hold-node 0 >"$held" &
	hold_pid=$!
	wait_for 60 grep -q '^held' "$held" || { cat "$held"; fail "hold-node did not fill node 0"; }
	cat "$held"

	passes=$(vmstat pghot_kmigrated_passes) full=$(vmstat pghot_kmigrated_full)
	visited=$(vmstat pghot_kmigrated_visited) faults=$(vmstat pghot_recorded_hintfaults)
	promoted=$(vmstat pgpromote_success) ticks=$(cpu_ticks "$pid")
	local failed swapped
	failed=$(vmstat pgmigrate_fail) swapped=$(($(vmstat pswpout) + $(vmstat zswpout)))
	echo 1 >"$SYSCTL/pghot_record_hintfaults_enable"
	# an observation window, not a wait for a condition; each second,
	# kmigrated2's CPU ticks so far and where it is (top of its stack)
	local i timeline=""
	for ((i = 0; i < HOLD_WINDOW_S; i++)); do
		sleep 1
		timeline+=" $(($(cpu_ticks "$pid") - ticks)):$(sed -n 1p "/proc/$pid/stack" 2>/dev/null | sed 's/^\[<[0-9a-f]*>\] //; s/+.*//')"
	done
	echo "kmigrated2 each second (CPU ticks:function):$timeline"
	passes=$(($(vmstat pghot_kmigrated_passes) - passes))
	full=$(($(vmstat pghot_kmigrated_full) - full))
	visited=$(($(vmstat pghot_kmigrated_visited) - visited))
	faults=$(($(vmstat pghot_recorded_hintfaults) - faults))
	promoted=$(($(vmstat pgpromote_success) - promoted))
	ticks=$(($(cpu_ticks "$pid") - ticks))
	failed=$(($(vmstat pgmigrate_fail) - failed)) swapped=$(($(vmstat pswpout) + $(vmstat zswpout) - swapped))
	echo "node 0 held for ${HOLD_WINDOW_S} s: hint faults recorded +$faults, kmigrated passes +$passes" \
		"(stopped by a full node: +$full), records visited +$visited, pages promoted +$promoted," \
		"failed migrations +$failed, pages swapped out +$swapped, kmigrated2 CPU ticks +$ticks"
	kill "$hold_pid"
	wait "$hold_pid" || true
	cat "$held"
	wait "$pw_pid" || true
	grep -v '^sample' "$pw"

	# it had the chance: hot pages became ready and met the full node
	[ "$faults" -gt 0 ] || fail "no hint fault was recorded while node 0 was held"
	[ "$full" -gt 0 ] || fail "no kmigrated pass met a full node: node 0 was not held full"
	# kmigrated used to retry ten times a second, walking and waking
	# kswapd each time; it must back off instead and not spin
	[ "$passes" -le $((2 * HOLD_WINDOW_S)) ] ||
		fail "kmigrated made $passes passes in ${HOLD_WINDOW_S} s against a full node, more than two a second"
	# (its CPU time is printed, not judged. With swap on it spent the
	# window copying pages it promoted into the room kswapd made by
	# swapping the previous ones out: a kernel backtrace of kmigrated2
	# each second showed folio_mc_copy() every time, at 9 us to 1.2 ms of
	# vCPU time per page under TCG)
	[ $((promoted * 2)) -lt "$HOLD_HOT" ] ||
		fail "$promoted of $HOLD_HOT hot pages were promoted while node 0 had no room"
	local line hot_top
	line=$(grep '^result' "$pw") || fail "promote-watch printed no result"
	hot_top=$(sed -n 's/.* hot_top=\([0-9]*\).*/\1/p' <<<"$line")
	[ $((hot_top * 100)) -ge $((HOLD_HOT * 95)) ] ||
		fail "only $hot_top of $HOLD_HOT hot pages were promoted after node 0 was freed"
}

ktap_main "$@"
