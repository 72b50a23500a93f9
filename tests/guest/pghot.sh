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
# context switches.) No access is recorded during the window, or it says
# so: then the thread had a reason to run.
case_kmigrated_idle_never_wakes() {
	local pid before after rec
	echo 0 >/proc/sys/kernel/numa_balancing
	echo 0 >"$SYSCTL/pghot_record_hwhints_enable"
	echo 0 >"$SYSCTL/pghot_record_pgtscans_enable"
	echo 0 >"$SYSCTL/pghot_record_hintfaults_enable"
	pid=$(pgrep -x kmigrated2) || fail "no kmigrated2 thread"
	rec=$(vmstat pghot_recorded_accesses)
	before=$(ctxt_switches "$pid")
	sleep 3
	after=$(ctxt_switches "$pid")
	echo 1 >"$SYSCTL/pghot_record_hintfaults_enable"
	echo "kmigrated2 context switches in a 3 s window with every source off: $((after - before))"
	[ "$(vmstat pghot_recorded_accesses)" = "$rec" ] || fail "accesses were recorded during the window"
	[ "$after" = "$before" ] || fail "kmigrated2 woke up $((after - before)) times with nothing to do"
}

ktap_main "$@"
