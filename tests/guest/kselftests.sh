#!/bin/bash
# Run the upstream selftests listed in /stack/tests/kselftests (built on the
# host into /guest/kselftest) and print nested KTAP: each program's own TAP
# output indented as its subtests, then one result line for the program
# from its exit status (0 pass, 4 skip, anything else fail). A test whose
# options (third column on) this kernel lacks is left out, with a comment
# saying so; each test that runs prints how long it took.
# The KSFT_* variables are for the harness's own test of this script.
LIST=${KSFT_LIST:-/stack/tests/kselftests}
# The tests create their page-cache files in the current directory: run
# them from a copy on the ext4 root (thrown away at power-off), not from
# the read-only 9p share.
BIN=${KSFT_RUNDIR:-/root/kselftest}
rm -rf "$BIN"
cp -a "${KSFT_BIN:-/guest/kselftest}" "$BIN"

# wanted OPTION...: this kernel has every OPTION (=y), and none of the
# !OPTION ones.
config=$(zcat "${KSFT_CONFIG:-/proc/config.gz}")
wanted() {
	local o
	for o in "$@"; do
		case $o in
		!*) ! grep -qx "${o#!}=y" <<<"$config" || return 1 ;;
		*) grep -qx "$o=y" <<<"$config" || return 1 ;;
		esac
	done
}

tests=() notrun=()
while read -r t secs opts; do
	# shellcheck disable=SC2086 # one word per option
	if wanted $opts; then
		tests+=("$t $secs")
	else
		notrun+=("# $t is not run on this kernel: it wants $opts (tests/kselftests says why)")
	fi
done < <(sed -e 's/#.*//' "$LIST" | awk 'NF')
echo "KTAP version 1"
echo "1..${#tests[@]}"
[ ${#notrun[@]} = 0 ] || printf '%s\n' "${notrun[@]}"
n=0
for entry in "${tests[@]}"; do
	read -r t secs <<<"$entry"
	n=$((n + 1))
	if [ ! -x "$BIN/$t" ]; then
		echo "not ok $n $t # not built: $BIN/$t is missing"
		continue
	fi
	rc=0
	start=$SECONDS
	# Indent the program's TAP so that its results nest under this one.
	# Line-buffered: the tests fork, and a full stdio buffer copied into
	# the child would print its results twice.
	(cd "$BIN/${t%/*}" && timeout -k 5 "$secs" stdbuf -oL -eL "./${t##*/}" </dev/null 2>&1) |
		sed 's/^/    /'
	rc=${PIPESTATUS[0]}
	echo "# $t took $((SECONDS - start)) s"
	case $rc in
	0) echo "ok $n $t" ;;
	4) echo "ok $n $t # SKIP (exit status 4)" ;;
	124 | 137) echo "not ok $n $t # TIMEOUT after ${secs}s" ;;
	*) echo "not ok $n $t # exit status $rc" ;;
	esac
done
