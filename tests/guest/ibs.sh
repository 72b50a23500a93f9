#!/bin/bash
# IBS access profiling under QEMU TCG, which has no IBS: the driver must
# say once why it is off, stay off, and take the hardware-hints switch
# harmlessly. With the default CPU model the CPU does not advertise IBS;
# the `ibs` matrix config forces the IBS CPUID bit on (QEMU_CPU in
# defconfigs/matrix), so the driver meets a CPU that claims IBS but has no
# working IBS behind it, and must not oops. (Sampling itself needs an AMD
# Zen CPU: see the pghot admin guide.)
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

case_driver_reports_why_it_is_off() {
	local lines
	lines=$(dmesg | grep 'ibs_access:')
	echo "$lines"
	[ "$(grep -c . <<<"$lines")" = 1 ] || fail "expected exactly one ibs_access: line at boot"
	if grep -qw ibs /proc/cpuinfo; then
		echo "this CPU model advertises IBS"
		grep -q 'memory access profiling off$' <<<"$lines" ||
			fail "IBS is advertised but cannot work under TCG; the driver did not turn itself off"
	else
		grep -q 'IBS absent, memory access profiling off' <<<"$lines" ||
			fail "the driver did not report IBS absent"
	fi
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
