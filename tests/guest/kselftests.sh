#!/bin/bash
# Run the upstream selftests listed in /stack/tests/kselftests (built on the
# host into /guest/kselftest) and print nested KTAP: each program's own TAP
# output indented as its subtests, then one result line for the program
# from its exit status (0 pass, 4 skip, anything else fail).
LIST=/stack/tests/kselftests
# The tests create their page-cache files in the current directory: run
# them from a copy on the ext4 root (thrown away at power-off), not from
# the read-only 9p share.
BIN=/root/kselftest
rm -rf "$BIN"
cp -a /guest/kselftest "$BIN"

mapfile -t tests < <(sed -e 's/#.*//' "$LIST" | awk 'NF { print $1, $2 }')
echo "KTAP version 1"
echo "1..${#tests[@]}"
n=0
for entry in "${tests[@]}"; do
	read -r t secs <<<"$entry"
	n=$((n + 1))
	if [ ! -x "$BIN/$t" ]; then
		echo "not ok $n $t # not built: $BIN/$t is missing"
		continue
	fi
	rc=0
	# Indent the program's TAP so that its results nest under this one.
	# Line-buffered: the tests fork, and a full stdio buffer copied into
	# the child would print its results twice.
	(cd "$BIN/${t%/*}" && timeout -k 5 "$secs" stdbuf -oL -eL "./${t##*/}" </dev/null 2>&1) |
		sed 's/^/    /'
	rc=${PIPESTATUS[0]}
	case $rc in
	0) echo "ok $n $t" ;;
	4) echo "ok $n $t # SKIP (exit status 4)" ;;
	124 | 137) echo "not ok $n $t # TIMEOUT after ${secs}s" ;;
	*) echo "not ok $n $t # exit status $rc" ;;
	esac
done
