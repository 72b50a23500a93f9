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
