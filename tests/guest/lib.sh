# shellcheck shell=bash
# Helpers for in-guest test groups. A group script defines one function per
# case, named case_<name>, and ends with `ktap_main "$@"`. Each case runs in
# its own process under a timeout, prints what it checks, and
#   returns 0 to pass, 1 to fail, or calls `skip "reason"` to skip.
# The group prints KTAP: one `ok`/`not ok` line per case, then a summary.

CASE_TIMEOUT=${CASE_TIMEOUT:-120}
KSFT_SKIP=4

skip() {
	echo "SKIP: $*"
	exit "$KSFT_SKIP"
}

fail() {
	echo "FAIL: $*"
	return 1
}

# Wait until a command succeeds, up to a number of seconds. The command is
# a condition, polled; time is only the upper bound.
wait_for() {
	local secs=$1 end
	shift
	end=$((SECONDS + secs))
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

sysfs_read() { tr -d '\n' <"$1"; }

ktap_main() {
	local self=$0 cases c n=0 rc out start pass=0 failed=0 skipped=0
	if [ "${1:-}" = --case ]; then
		declare -F "case_$2" >/dev/null || {
			echo "FAIL: $(basename "$self") has no case $2 (tests/groups names it in a cases@ word)"
			return 1
		}
		set -e
		"case_$2"
		return
	fi
	# in the order the script defines them: later cases may build on earlier ones
	cases=$(sed -n 's/^case_\([A-Za-z0-9_]*\)() {.*/\1/p' "$self")
	echo "KTAP version 1"
	if [ -n "${CASES:-}" ]; then
		# a subset (tests/groups' cases@GLOB= words); a name the script
		# does not define is a failed result, not a silent omission
		local all
		all=${cases//$'\n'/ }
		cases=''
		for c in $all; do [[ " $CASES " != *" $c "* ]] || cases+=" $c"; done
		for c in $CASES; do [[ " $all " == *" $c "* ]] || cases+=" $c"; done
		echo "1..$(echo "$cases" | wc -w)"
		echo "# $(echo "$cases" | wc -w) of $(echo "$all" | wc -w) cases run on this config (tests/groups): $cases"
	else
		echo "1..$(echo "$cases" | wc -w)"
	fi
	for c in $cases; do
		n=$((n + 1))
		rc=0
		start=$SECONDS
		out=$(timeout -k 5 "$CASE_TIMEOUT" bash "$self" --case "$c" 2>&1) || rc=$?
		[ -z "$out" ] || sed 's/^/# /' <<<"$out"
		echo "# $c took $((SECONDS - start)) s" # for results.json, not a verdict
		case $rc in
		0) echo "ok $n $c"; pass=$((pass + 1)) ;;
		"$KSFT_SKIP") echo "ok $n $c # SKIP $(sed -n 's/^SKIP: //p' <<<"$out" | tail -n1)"; skipped=$((skipped + 1)) ;;
		124 | 137) echo "not ok $n $c # TIMEOUT after ${CASE_TIMEOUT}s"; failed=$((failed + 1)) ;;
		*) echo "not ok $n $c"; failed=$((failed + 1)) ;;
		esac
	done
	echo "# $(basename "$self" .sh): $pass passed, $failed failed, $skipped skipped"
}

# A counter from /proc/vmstat (0 if the kernel does not have it).
vmstat() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' /proc/vmstat; }

has_config() { zcat /proc/config.gz | grep -qx "CONFIG_$1=y"; }
# dax kmem built as a module: daxctl can load it, as on a distribution kernel
kmem_is_module() { zcat /proc/config.gz | grep -qx 'CONFIG_DEV_DAX_KMEM=m'; }

# Run promote-watch (see tests/guest/promote-watch.c) and set PW_MS,
# PW_HOT_TOP, PW_HOT, PW_COLD_TOP, PW_COLD from its result line. Its
# samples are printed as they come.
# shellcheck disable=SC2034 # the PW_* results are for the caller
promote_watch() {
	local out rc=0
	out=$(/guest/bin/promote-watch "$@") || rc=$?
	grep -v '^sample' <<<"$out"
	# A few samples to show the progress: first, middle and last.
	grep '^sample' <<<"$out" | awk '{ s[NR] = $0 } END { if (NR) { print s[1]; print s[int((NR + 1) / 2)]; print s[NR] } }'
	[ "$rc" = 0 ] || fail "promote-watch exited with $rc"
	local line
	line=$(grep '^result' <<<"$out") || fail "promote-watch printed no result"
	PW_MS=$(sed -n 's/.* ms=\([0-9]*\).*/\1/p' <<<"$line")
	PW_HOT_TOP=$(sed -n 's/.* hot_top=\([0-9]*\).*/\1/p' <<<"$line")
	PW_HOT=$(sed -n 's/.* hot=\([0-9]*\).*/\1/p' <<<"$line")
	PW_COLD_TOP=$(sed -n 's/.* cold_top=\([0-9]*\).*/\1/p' <<<"$line")
	PW_COLD=$(sed -n 's/.* cold=\([0-9]*\).*/\1/p' <<<"$line")
	PW_BOUND_TOP=$(sed -n 's/.* bound_top=\([0-9]*\).*/\1/p' <<<"$line")
	PW_ONCE_FAULTS=$(sed -n 's/^once .* once_faults=\([0-9]*\).*/\1/p' <<<"$out")
	PW_ONCE_RECORDED=$(sed -n 's/^once .* once_recorded=\(-*[0-9]*\).*/\1/p' <<<"$out")
	PW_LAST_FAULTS=$(sed -n 's/^once .* last_faults=\([0-9]*\).*/\1/p' <<<"$out")
	PW_LAST_RECORDED=$(sed -n 's/^once .* last_recorded=\(-*[0-9]*\).*/\1/p' <<<"$out")
	PW_LAST_LAG=$(sed -n 's/^once .* last_lag_ms=\(-*[0-9]*\).*/\1/p' <<<"$out")
	PW_TOUCHED=$(sed -n 's/^once touched=\([0-9]*\).*/\1/p' <<<"$out")
	PW_THP=$(sed -n 's/^setup .* thp=\([01]\).*/\1/p' <<<"$out")
	PW_REUSED=$(sed -n 's/^pfns .* reused=\(-*[0-9]*\).*/\1/p' <<<"$out")
	PW_SWAP_OUT=$(sed -n 's/^swap out=\([0-9]*\).*/\1/p' <<<"$out")
	PW_SWAP_BACK=$(sed -n 's/^swap .* back_on_slow=\([0-9]*\).*/\1/p' <<<"$out")
}

# After promote_watch with cold pages: at least 95% of the hot set went
# up, and at most 1% of the cold pages, described by $1, did.
hot_up_cold_stayed() {
	[ $((PW_HOT_TOP * 100)) -ge $((PW_HOT * 95)) ] ||
		fail "only $PW_HOT_TOP of $PW_HOT hot pages promoted"
	[ "$PW_COLD_TOP" -le $((PW_COLD / 100)) ] ||
		fail "$PW_COLD_TOP of $PW_COLD cold pages $1 were promoted"
}

# utime + stime of process $1, in clock ticks
cpu_ticks() { [ -n "$1" ] && awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# For a page-table-scan case, what happened each second while it ran:
# pghot_recorded_pgtscans added, klruscand's CPU ticks in that second and
# where it was then (wchan; 0: running). Start it before the workload;
# scan_timeline_stop prints it. Page-table-scan workloads run
# promote-watch -T 10: see tests/guest/tlb-turnover.h for why.
scan_timeline_start() {
	TIMELINE=$(mktemp)
	(
		kl=$(pgrep -x klruscand) || kl=
		r0=$(vmstat pghot_recorded_pgtscans) k0=$(cpu_ticks "$kl")
		while sleep 1; do
			r1=$(vmstat pghot_recorded_pgtscans) k1=$(cpu_ticks "$kl")
			echo -n " $((r1 - r0))/$((k1 - k0))/$(cat "/proc/$kl/wchan" 2>/dev/null)"
			r0=$r1 k0=$k1
		done
	) >"$TIMELINE" &
	TIMELINE_PID=$!
}
scan_timeline_stop() {
	kill "$TIMELINE_PID" 2>/dev/null || true
	wait "$TIMELINE_PID" 2>/dev/null || true # killed: status 143
	echo "each second, pgtscan records/klruscand ticks/klruscand wchan:$(cat "$TIMELINE")"
	rm -f "$TIMELINE"
}

# The name of the first sysfs device among $2... whose target_node is $1.
device_on_node() {
	local node=$1 d
	shift
	for d in "$@"; do
		if [ "$(sysfs_read "$d/target_node" 2>/dev/null)" = "$node" ]; then
			basename "$d"
			return 0
		fi
	done
	return 1
}

# The nvdimm namespace of the pmem range boot/qemu reserved on node $1.
pmem_namespace() {
	device_on_node "$1" /sys/bus/nd/devices/namespace*.0 ||
		{ echo "no pmem namespace on node $1" >&2; return 1; }
}

# Turn node $1's pmem range into a devdax device; print its name (daxX.Y).
devdax_on_node() {
	local ns
	ns=$(pmem_namespace "$1") || return 1
	ndctl create-namespace -f -e "$ns" -m devdax >/dev/null || return 1
	device_on_node "$1" /sys/bus/dax/devices/dax* ||
		{ echo "no dax device on node $1 after ndctl create-namespace" >&2; return 1; }
}

# Give dax device $1 to kmem, its memory left offline. With kmem a module
# (CONFIG_DEV_DAX_KMEM=m), the way users do: daxctl loads the module and
# rebinds. Built in, daxctl cannot (it fails loading the module): rebind
# through sysfs. Succeeds if kmem ends up bound (a failing probe does not
# fail the new_id write).
dax_to_kmem() {
	if kmem_is_module; then
		daxctl reconfigure-device --mode=system-ram --no-online "$1" >&2 || return 1
	else
		echo "$1" >/sys/bus/dax/drivers/device_dax/unbind || return 1
		echo "$1" >/sys/bus/dax/drivers/kmem/new_id || return 1
	fi
	[ -e "/sys/bus/dax/drivers/kmem/$1" ]
}

# The memory blocks (/sys/devices/system/memory/memoryN) that dax device
# $1's range covers whole (kmem adds no partial block), one per line.
dax_blocks() {
	local start size bs i
	start=$(cat "/sys/bus/dax/devices/$1/resource") || return 1
	size=$(cat "/sys/bus/dax/devices/$1/size") || return 1
	bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
	for ((i = (start + bs - 1) / bs; i < (start + size) / bs; i++)); do
		[ ! -d "/sys/devices/system/memory/memory$i" ] || echo "/sys/devices/system/memory/memory$i"
	done
}

# Give dax device $1, bound to kmem, back to device-dax: its memory offlined
# and removed first. With kmem a module, the way users do (daxctl); built
# in, through sysfs, offlining the blocks of its range.
dax_to_devdax() {
	local m
	if kmem_is_module; then
		daxctl reconfigure-device --mode=devdax --force "$1" >&2 || return 1
	else
		for m in $(dax_blocks "$1"); do
			[ "$(cat "$m/state")" = offline ] || echo offline >"$m/state" || return 1
		done
		echo "$1" >/sys/bus/dax/drivers/kmem/unbind || return 1
		echo "$1" >/sys/bus/dax/drivers/device_dax/bind 2>/dev/null ||
			echo "$1" >/sys/bus/dax/drivers/device_dax/new_id || return 1
	fi
	[ -e "/sys/bus/dax/drivers/device_dax/$1" ]
}

# Online every offline memory block of node $1 as movable memory.
online_node_movable() {
	local m
	for m in /sys/devices/system/node/node"$1"/memory[0-9]*; do
		[ "$(cat "$m/state")" = online ] || echo online_movable >"$m/state" || return 1
	done
}

# MemFree of node $1 in kB.
node_free_kb() { awk '/MemFree/ { print $4 }' "/sys/devices/system/node/node$1/meminfo"; }
