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
	local self=$0 cases c n=0 rc out pass=0 failed=0 skipped=0
	if [ "${1:-}" = --case ]; then
		set -e
		"case_$2"
		return
	fi
	cases=$(declare -F | awk '{ print $3 }' | sed -n 's/^case_//p')
	echo "KTAP version 1"
	echo "1..$(echo "$cases" | wc -w)"
	for c in $cases; do
		n=$((n + 1))
		rc=0
		out=$(timeout -k 5 "$CASE_TIMEOUT" bash "$self" --case "$c" 2>&1) || rc=$?
		[ -z "$out" ] || sed 's/^/# /' <<<"$out"
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
	PW_THP=$(sed -n 's/^setup .* thp=\([01]\).*/\1/p' <<<"$out")
}
