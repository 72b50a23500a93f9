#!/bin/bash
# IBS access profiling under QEMU TCG, which has no IBS: the driver must
# say once why it is off, stay off, and take the hardware-hints switch
# harmlessly. With the default CPU model the CPU does not advertise IBS;
# the `ibs` matrix config forces the IBS CPUID bit on (QEMU_CPU in
# defconfigs/matrix), so the driver meets a CPU that claims IBS but has no
# working IBS behind it, and must not oops. (Sampling itself needs an AMD
# Zen CPU: see the pghot admin guide.) Where the config has the sample
# injector (CONFIG_IBS_ACCESS_PROFILING_INJECT: `all`, `all-debug`), the
# last cases feed made-up samples through it, so that the path from an IBS
# sample to a promoted page runs all the same.
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

case_driver_reports_why_it_is_off() {
	local lines
	lines=$(dmesg | grep 'ibs_access:')
	echo "$lines"
	[ "$(grep -c . <<<"$lines")" = 1 ] || fail "expected exactly one ibs_access: line at boot"
	if grep -qw ibs /proc/cpuinfo; then
		echo "this CPU model advertises IBS"
		grep -Eq 'memory access profiling off(; samples can be injected \(debugfs ibs_access/inject\))?$' <<<"$lines" ||
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

INJ=/sys/kernel/debug/ibs_access/inject

# The injector, with hardware hints the only pghot source; skips where the
# config has no injector (and then there must be no file).
inject_setup() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	if ! has_config IBS_ACCESS_PROFILING_INJECT; then
		[ ! -e "$INJ" ] || fail "$INJ exists without CONFIG_IBS_ACCESS_PROFILING_INJECT"
		skip "this config has no IBS sample injector"
	fi
	[ -f "$INJ" ] || fail "CONFIG_IBS_ACCESS_PROFILING_INJECT=y but no $INJ"
	# the groups after this one find the sources as they were
	local k saved=""
	for k in kernel/numa_balancing vm/pghot_record_pgtscans_enable \
		vm/pghot_record_hintfaults_enable vm/pghot_record_hwhints_enable; do
		saved+="echo $(cat "/proc/sys/$k") >/proc/sys/$k; "
	done
	# shellcheck disable=SC2064 # the values are read now
	trap "$saved" EXIT
	echo 0 >/proc/sys/kernel/numa_balancing
	echo 0 >/proc/sys/vm/pghot_record_pgtscans_enable
	echo 0 >/proc/sys/vm/pghot_record_hintfaults_enable
}

# The samples dropped by the filter (not ibs_drop_not_lru: a page being
# promoted is off the LRU for a moment, and its sample is then dropped).
drops() { awk '/^ibs_drop_/ && $1 != "ibs_drop_not_lru" { n += $2 } END { print n + 0 }' /proc/vmstat; }

case_injected_samples_promote_hot_pages() {
	local useful0 rec0 prom0 drops0 useful rec prom
	inject_setup
	grep -q 'samples can be injected (debugfs ibs_access/inject)' <(dmesg) ||
		fail "the boot line does not say that samples can be injected"
	useful0=$(vmstat ibs_sample_useful) rec0=$(vmstat pghot_recorded_hwhints)
	prom0=$(vmstat pgpromote_success) drops0=$(drops)
	echo 1 >/proc/sys/vm/pghot_record_hwhints_enable
	promote_watch -m anon -n 1024 -c 1024 -t 30000 -I "$INJ"
	echo 0 >/proc/sys/vm/pghot_record_hwhints_enable
	useful=$(($(vmstat ibs_sample_useful) - useful0))
	rec=$(($(vmstat pghot_recorded_hwhints) - rec0))
	prom=$(($(vmstat pgpromote_success) - prom0))
	echo "ibs_sample_useful +$useful, pghot_recorded_hwhints +$rec, pgpromote_success +$prom, drops +$(($(drops) - drops0))"
	hot_up_cold_stayed "never sampled"
	[ "$useful" -ge "$PW_HOT" ] || fail "fewer useful samples ($useful) than hot pages ($PW_HOT)"
	[ "$rec" -ge "$PW_HOT_TOP" ] || fail "pghot recorded $rec samples for $PW_HOT_TOP promoted pages"
	[ "$rec" -le "$useful" ] || fail "pghot recorded more samples ($rec) than were useful ($useful)"
	[ "$prom" -ge "$PW_HOT_TOP" ] || fail "pgpromote_success +$prom for $PW_HOT_TOP pages promoted"
	[ "$(drops)" = "$drops0" ] || fail "valid samples were dropped by the filter"
}

case_injected_samples_off_records_nothing() {
	local useful0 rec0 useful
	inject_setup
	echo 0 >/proc/sys/vm/pghot_record_hwhints_enable
	useful0=$(vmstat ibs_sample_useful) rec0=$(vmstat pghot_recorded_hwhints)
	promote_watch -m anon -n 512 -c 0 -t 3000 -w -I "$INJ"
	useful=$(($(vmstat ibs_sample_useful) - useful0))
	echo "ibs_sample_useful +$useful, pghot_recorded_hwhints +$(($(vmstat pghot_recorded_hwhints) - rec0))"
	# the samples did come
	[ "$useful" -ge 512 ] || fail "only $useful samples reached the driver"
	[ "$(vmstat pghot_recorded_hwhints)" = "$rec0" ] ||
		fail "pghot recorded samples with vm.pghot_record_hwhints_enable=0"
	[ "$PW_HOT_TOP" = 0 ] || fail "$PW_HOT_TOP pages promoted with hardware hints off"
}

# inject_write TEXT: write TEXT to the injector in one write(), each "@"
# in it replaced with an address of the writer's own (perl's: a string of
# its); prints "ok" or the error. (A shell's printf writes line by line.)
inject_write() {
	perl -e '
		my $own = "x" x 4096;
		my $addr = sprintf("%#x", unpack("J", pack("p", $own)));
		(my $text = $ARGV[1]) =~ s/@/$addr/g;
		$text =~ s/\\n/\n/g;
		open(my $f, ">", $ARGV[0]) or die "open: $!\n";
		print defined(syswrite($f, $text)) ? "ok\n" : "$!\n";
	' "$INJ" "$1"
}

expect_write() {
	local got
	got=$(inject_write "$2")
	echo "$(cut -c1-40 <<<"$2"): $got"
	[ "$got" = "$1" ] || fail "wrote $(cut -c1-40 <<<"$2"): expected '$1', got '$got'"
}

# Every sample ends in exactly one ibs_* counter.
samples() { awk '/^ibs_(sample|drop)_/ { n += $2 } END { print n + 0 }' /proc/vmstat; }

case_inject_rejects_bad_input() {
	local n0
	inject_setup
	n0=$(samples)
	expect_write ok "@\\n"
	expect_write ok "@"
	expect_write ok "@ w\\n@\\n"
	# the three writes made four samples
	[ "$(($(samples) - n0))" = 4 ] || fail "4 samples written, the ibs_* counters +$(($(samples) - n0))"
	n0=$(samples)
	expect_write "Invalid argument" "\\n"
	expect_write "Invalid argument" "zz\\n"
	expect_write "Invalid argument" "0x\\n"
	expect_write "Invalid argument" "-1\\n"
	expect_write "Invalid argument" "123456789012345678901234567890\\n"
	expect_write "Invalid argument" "@ garbage\\n"
	expect_write "Invalid argument" "@z\\n"
	# all or nothing: good lines before a bad one are not injected either
	expect_write "Invalid argument" "@\\n@\\nzz\\n"
	# over 64 KiB in one write
	expect_write "Invalid argument" "$(printf '@\\n%.0s' $(seq 5000))"
	# not mapped in the writer's address space, or not a user address
	expect_write "Bad address" "0x10\\n"
	expect_write "Bad address" "0xffff888000000000\\n"
	expect_write "Bad address" "@\\n0x10\\n"
	[ "$(samples)" = "$n0" ] || fail "rejected writes made $(($(samples) - n0)) samples"
}

ktap_main "$@"
