#!/bin/bash
# IBS access profiling under QEMU TCG, which has no IBS: the driver must
# say so once, stay off, and take the hardware-hints switch harmlessly.
# (Sampling itself needs an AMD Zen CPU: see the pghot admin guide.)
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

case_driver_reports_ibs_absent() {
	local lines
	! grep -qw ibs /proc/cpuinfo || skip "this CPU model advertises IBS; the absent case cannot be checked"
	lines=$(dmesg | grep 'ibs_access:')
	echo "$lines"
	[ "$(grep -c . <<<"$lines")" = 1 ] || fail "expected exactly one ibs_access: line at boot"
	grep -q 'IBS absent, memory access profiling off' <<<"$lines" || fail "the driver did not report IBS absent"
}

case_counters_exist_and_stay_zero() {
	local k
	for k in ibs_sample_useful ibs_drop_not_valid ibs_drop_kernel ibs_drop_no_mm \
		ibs_drop_not_ldst ibs_drop_no_miss ibs_drop_lin_invalid ibs_drop_phys_invalid \
		ibs_drop_not_lru ibs_drop_buffer_full; do
		grep -q "^$k " /proc/vmstat || fail "no $k in /proc/vmstat"
		[ "$(vmstat "$k")" = 0 ] || fail "$k is $(vmstat "$k") with no IBS"
	done
	[ ! -e /proc/sys/vm/ibs_access_sample_period ] ||
		fail "vm.ibs_access_sample_period exists although IBS cannot be used"
}

case_hwhints_toggle_is_harmless() {
	local k=/proc/sys/vm/pghot_record_hwhints_enable before
	before=$(vmstat pghot_recorded_hwhints)
	for _ in $(seq 10); do
		echo 1 >"$k"
		echo 0 >"$k"
	done
	echo 1 >"$k"
	/guest/bin/promote-watch -m anon -n 1024 -c 0 -t 2000 -w >/dev/null
	echo 0 >"$k"
	[ "$(vmstat pghot_recorded_hwhints)" = "$before" ] || fail "hardware hints arrived without IBS"
	[ "$(dmesg | grep -c 'ibs_access:')" = 1 ] || fail "toggling the switch logged more ibs_access lines"
}

ktap_main "$@"
