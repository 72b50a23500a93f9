#!/bin/bash
# In the guest: run the benchmark plan that bench/run left in the share.
#   bash /stack/bench/guest.sh [SHARE]        (SHARE defaults to /share)
#
# SHARE/plan has one run per line:
#   VARIANT CASE REP RATE_MBPS TIERBENCH-ARGS...
# (RATE_MBPS '-' keeps the kernel's promotion rate limit). For each run this
# sets the variant's sysctls, snapshots /proc/vmstat and the CPU time of the
# kmigrated*/klruscand threads, runs SHARE/bin/tierbench, snapshots again
# and writes SHARE/out/VARIANT.CASE.REP.txt (a warm-up run, REP "warmup",
# writes SHARE/warmup/VARIANT.CASE.txt instead):
#   meta kernel=.. variant=.. case=.. rep=.. clk_tck=.. rate_limit_MBps=.. ...
#   na reason=...                     (instead of running: variant impossible)
#   delta COUNTER=N ...               (vmstat after - before)
#   cpu_ms kmigrated=N|NA klruscand=N|NA
#   rc N
#   setup/fill/sample/result lines of tierbench
# A variant is NUMAB0, NUMAB2, pgtscan or hwhints; the kernel name comes
# from SHARE/kernel. Where the guest has no IBS but the kernel has the IBS
# sample injector (CONFIG_IBS_ACCESS_PROFILING_INJECT), hwhints runs with
# tierbench reporting one access in INJECT_EVERY to it (meta hwhints=injected).

share=${1:-/share}
bin=$share/bin/tierbench
out=$share/out
# BENCH_SYSCTL_ROOT: a fake /proc/sys, to try this script outside a guest
# (then /sys is left alone too)
SYS=${BENCH_SYSCTL_ROOT:-/proc/sys}
DEMOTION=/sys/kernel/mm/numa/demotion_enabled
[ -z "${BENCH_SYSCTL_ROOT:-}" ] || DEMOTION=$SYS/demotion_enabled
mkdir -p "$out"
kernel=$(cat "$share/kernel" 2>/dev/null || echo unknown)
clk_tck=$(getconf CLK_TCK)
INJ=/sys/kernel/debug/ibs_access/inject
# One access in 512 is about what IBS samples at its default period (10000
# ops) of tierbench's loop, a few dozen ops an access.
INJECT_EVERY=${INJECT_EVERY:-512}

COUNTERS="pgpromote_success pgpromote_candidate thp_migration_success pgmigrate_success
numa_hint_faults numa_pages_migrated pgdemote_kswapd pgdemote_direct
pghot_recorded_accesses pghot_recorded_hintfaults pghot_recorded_pgtscans
pghot_recorded_hwhints pghot_kmigrated_visited pghot_kmigrated_passes pghot_kmigrated_full
pgmigrate_fail pswpin pswpout zswpin zswpout thp_collapse_alloc"

# Write a sysctl if the kernel has it; fail quietly otherwise.
put() { [ -w "$SYS/$1" ] && echo "$2" >"$SYS/$1"; }
get() { cat "$SYS/$1" 2>/dev/null || echo NA; }

has_pghot() { [ -f "$SYS/vm/pghot_record_hintfaults_enable" ]; }

sources_off() {
	put kernel/numa_balancing 0
	put vm/pghot_record_hintfaults_enable 0
	put vm/pghot_record_pgtscans_enable 0
	put vm/pghot_record_hwhints_enable 0
}

# Why VARIANT cannot run on this kernel, or nothing.
impossible() {
	local line
	case $1 in
	NUMAB0 | NUMAB2) ;;
	pgtscan)
		[ -f "$SYS/vm/pghot_record_pgtscans_enable" ] || echo "no vm.pghot_record_pgtscans_enable on kernel $kernel"
		;;
	hwhints)
		if [ ! -f "$SYS/vm/pghot_record_hwhints_enable" ]; then
			echo "no vm.pghot_record_hwhints_enable on kernel $kernel"
			return
		fi
		line=$(dmesg | grep -m1 'ibs_access:' | sed 's/^\[[^]]*\] *//')
		if [ -z "$line" ]; then
			echo "no ibs_access line in dmesg: IBS driver not present"
		elif injected; then
			return 0
		elif grep -q 'IBS absent\|profiling off' <<<"$line"; then
			echo "$line"
		fi
		;;
	*) echo "unknown variant $1" ;;
	esac
}

# No IBS, and the kernel takes made-up samples instead.
injected() {
	dmesg | grep -q 'ibs_access: .*samples can be injected' || return 1
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -w "$INJ" ]
}

set_variant() {
	sources_off
	case $1 in
	NUMAB2)
		put kernel/numa_balancing 2
		has_pghot && put vm/pghot_record_hintfaults_enable 1
		;;
	pgtscan) put vm/pghot_record_pgtscans_enable 1 ;;
	hwhints) put vm/pghot_record_hwhints_enable 1 ;;
	esac
	return 0
}

rate_knob() {
	if has_pghot; then echo vm/pghot_promote_rate_limit_MBps; else echo kernel/numa_balancing_promote_rate_limit_MBps; fi
}

# Selected /proc/vmstat counters as "name value" lines.
snap_vmstat() { awk -v want="$COUNTERS" 'BEGIN { n = split(want, w); for (i = 1; i <= n; i++) k[w[i]] = 1 } ($1 in k) { print $1, $2 }' /proc/vmstat; }

# Summed utime+stime ticks of the kernel threads whose name starts with $1.
ticks_of() {
	local f comm sum=0 found=0
	for f in /proc/[0-9]*/comm; do
		{ read -r comm <"$f"; } 2>/dev/null || continue
		case $comm in
		"$1"*)
			found=1
			sum=$((sum + $(awk '{ print $14 + $15 }' "${f%/comm}/stat" 2>/dev/null || echo 0)))
			;;
		esac
	done
	if [ "$found" = 1 ]; then echo "$sum"; else echo NA; fi
}

cpu_delta_ms() {
	if [ "$1" = NA ] || [ "$2" = NA ]; then echo NA; else echo $((($2 - $1) * 1000 / clk_tck)); fi
}

default_rate=$(get "$(rate_knob)")
# A tiering setup on both kernels: reclaim on a top tier node demotes to
# the lower tier rather than swapping. It matters in the full case, where
# every promotion needs room that demotion makes.
[ -w "$DEMOTION" ] && echo true >"$DEMOTION"
echo "bench: kernel $kernel, $(grep -c . "$share/plan") runs; $(dmesg | grep -m1 'ibs_access:' | sed 's/^\[[^]]*\] *//')"
n=0 failed=0
while read -r variant case rep rate args; do
	[ -n "$variant" ] || continue
	n=$((n + 1))
	f=$out/$variant.$case.$rep.txt
	# a warm-up run (see bench/run) is kept out of the results
	if [ "$rep" = warmup ]; then
		mkdir -p "$share/warmup"
		f=$share/warmup/$variant.$case.txt
	fi
	why=$(impossible "$variant")
	if [ -n "$why" ]; then
		printf 'meta kernel=%s variant=%s case=%s rep=%s\nna reason=%s\n' "$kernel" "$variant" "$case" "$rep" "$why" >"$f"
		echo "bench: [$n] $variant $case rep $rep: NA ($why)"
		continue
	fi
	if [ "$rate" = - ]; then put "$(rate_knob)" "$default_rate"; else put "$(rate_knob)" "$rate"; fi
	sync
	put vm/drop_caches 3
	put vm/compact_memory 1
	set_variant "$variant"
	how=
	run_args=$args
	if [ "$variant" = hwhints ] && injected; then
		how=" hwhints=injected inject_every=$INJECT_EVERY"
		run_args="$args --inject $INJ --inject-every $INJECT_EVERY"
	fi
	# held: the kernel must not make room by demoting (see bench/run)
	if [ -w "$DEMOTION" ]; then
		if [ "$case" = held ]; then echo false >"$DEMOTION"; else echo true >"$DEMOTION"; fi
	fi
	{
		echo "meta kernel=$kernel variant=$variant case=$case rep=$rep clk_tck=$clk_tck" \
			"numa_balancing=$(get kernel/numa_balancing)" \
			"rate_limit_MBps=$(get "$(rate_knob)")" \
			"demotion=$(cat "$DEMOTION" 2>/dev/null || echo NA)" \
			"freq_window_ms=$(get vm/pghot_promote_freq_window_ms)" \
			"hot_threshold_ms=$(cat /sys/kernel/debug/sched/numa_balancing/hot_threshold_ms 2>/dev/null || echo NA)" \
			"args=${args// /,}$how"
	} >"$f"
	before=$(snap_vmstat)
	km0=$(ticks_of kmigrated) kl0=$(ticks_of klruscand)
	start=$SECONDS
	rc=0
	# shellcheck disable=SC2086 # the plan's arguments are words
	res=$(timeout -k 10 900 "$bin" $run_args 2>&1 </dev/null) || rc=$?
	km1=$(ticks_of kmigrated) kl1=$(ticks_of klruscand)
	after=$(snap_vmstat)
	sources_off
	{
		echo "delta $(join -j 1 <(sort <<<"$before") <(sort <<<"$after") | awk '{ printf "%s%s=%d", sep, $1, $3 - $2; sep = " " }')"
		echo "cpu_ms kmigrated=$(cpu_delta_ms "$km0" "$km1") klruscand=$(cpu_delta_ms "$kl0" "$kl1")"
		echo "rc $rc"
		echo "$res"
	} >>"$f"
	[ "$rc" = 0 ] || failed=$((failed + 1))
	echo "bench: [$n] $variant $case rep $rep: rc $rc, $((SECONDS - start)) s; $(grep '^result' <<<"$res" | cut -d' ' -f2-7)"
	[ "$rc" = 0 ] || grep -v '^sample' <<<"$res" | tail -n 3
	sync
done <"$share/plan"
put "$(rate_knob)" "$default_rate"
[ -w "$DEMOTION" ] && echo true >"$DEMOTION"
echo "bench: kernel $kernel done, $n runs, $failed failed"
[ "$failed" = 0 ]
