#!/bin/bash
# Bad input: every sysctl, sysfs and debugfs file the stack adds that takes
# a value, fed malformed and out-of-range values. Each must fail with
# EINVAL and leave the file as it was; each value of the documented range
# (and one written without a newline) must be accepted and read back.
# The table below is the whole specification: one line per file, with the
# range its documentation gives.
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

# A hang guard: about 500 writes and reads; 19 s on all, over 120 s on
# all-debug with the host busy.
CASE_TIMEOUT=600

# file (DAX: the dax device made for the test; ?: only present on
# hardware the guest cannot have) | kind | accepted values
#   int MIN MAX [STEP]  a decimal number in MIN..MAX (a multiple of STEP)
#   bool                0 or 1
#   word W...           one of the words
#   pfn                 a page frame number of memory
# Not here: ibs_access/inject takes lines of addresses (ibs.sh
# inject_rejects_bad_input); the CXL region's spm_node is the dax one's
# twin, and no guest has CXL.
TABLE='
/proc/sys/vm/pghot_record_hwhints_enable                int 0 1
/proc/sys/vm/pghot_record_pgtscans_enable               int 0 1
/proc/sys/vm/pghot_record_hintfaults_enable             int 0 1
/proc/sys/vm/pghot_promote_freq_window_ms               int 1 60000
/proc/sys/vm/pghot_promote_rate_limit_MBps              int 0 2147483647
/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps int 0 2147483647
/proc/sys/vm/klruscand_scan_interval_ms                 int 100 60000
?/proc/sys/vm/ibs_access_sample_period                  int 4096 1048560 16
/sys/kernel/debug/klruscand/period_max_ms               int 0 0
/sys/kernel/debug/pghot/record                          pfn
DAX/spm_node                                            bool
DAX/spm_purpose                                         word generic compressed_ram
'

DAXS=/sys/bus/dax/devices

rows() { sed -e '/^$/d' <<<"$TABLE"; }

# write FILE VALUE (\n in VALUE is a newline): prints "ok" or the error
# of the write.
write() {
	local msg
	if msg=$( (printf '%b' "$2" >"$1") 2>&1); then
		echo ok
	else
		echo "${msg##*: }"
	fi
}

# A check that failed: counted, so that one run lists every one.
BAD=0
bad() {
	echo "FAIL: $*"
	BAD=$((BAD + 1))
}

# rejected FILE VALUE: EINVAL, and the file reads as before.
rejected() {
	local before got
	before=$(cat "$1")
	got=$(write "$1" "$2")
	[ "$got" = "Invalid argument" ] || bad "$1 took '$2': $got, not EINVAL"
	[ "$(cat "$1")" = "$before" ] || bad "$1 reads '$(cat "$1")' after '$2' was rejected, was '$before'"
}

# accepted FILE VALUE [READ]: the write succeeds and the file reads READ
# (default VALUE without its newline).
accepted() {
	local got want=${3-${2%\\n}}
	got=$(write "$1" "$2")
	[ "$got" = ok ] || bad "$1 rejected '$2': $got"
	got=$(cat "$1")
	[ "$got" = "$want" ] || bad "$1 reads '$got' after '$2', expected '$want'"
}

# What no file of the table takes: nothing, a sign, a base with no digits,
# 30 digits (more than any integer), trailing garbage. (A sysctl integer
# followed by a space and more is left out: the sysctl parser reads a
# vector of integers, takes the first and reports a short write, so the
# writer's retry of the rest fails after the first was set. That is how
# every integer sysctl of the kernel behaves; the files that parse a
# whole value, below, are checked with it.)
common_bad() {
	rejected "$1" '\n'
	rejected "$1" '-\n'
	rejected "$1" '0x\n'
	rejected "$1" '123456789012345678901234567890\n'
	rejected "$1" "${2}abc\\n"
	[ "$3" = sysctl ] || rejected "$1" "$2 garbage\\n"
}

check_int() {
	local f=$1 min=$2 max=$3 step=${4:-1} old
	old=$(cat "$f")
	common_bad "$f" "$min" "$([ "${f#/proc/sys/}" = "$f" ] || echo sysctl)"
	rejected "$f" "$((min - 1))\\n"
	rejected "$f" "$((max + 1))\\n"
	[ "$step" = 1 ] || rejected "$f" "$((min + step / 2))\\n"
	accepted "$f" "$min\\n"
	accepted "$f" "$max\\n"
	accepted "$f" "$min"
	# back to where it was, if that can be written (period_max_ms reads
	# what the kernel measured and takes only 0)
	[ "$old" -lt "$min" ] || [ "$old" -gt "$max" ] || accepted "$f" "$old\\n"
}

check_bool() {
	local f=$1 old
	old=$(cat "$f")
	common_bad "$f" 1
	rejected "$f" '-1\n'
	rejected "$f" '2\n'
	rejected "$f" '10\n'
	rejected "$f" 'y\n'
	rejected "$f" 'on\n'
	accepted "$f" '1\n'
	accepted "$f" '0\n'
	accepted "$f" '1'
	accepted "$f" "$old\\n"
}

check_word() {
	local f=$1 old w
	shift
	old=$(cat "$f")
	common_bad "$f" "$1"
	rejected "$f" '-1\n'
	rejected "$f" "${1}x\\n"
	rejected "$f" "x${1}\\n"
	for w in "$@"; do
		accepted "$f" "$w\\n"
	done
	accepted "$f" "$1"
	accepted "$f" "$old\\n"
}

# A PFN reads back as "pfn=0x... node=N ..."; the first PFN of node 2.
check_pfn() {
	local f=$1 pfn
	pfn=$(awk '/^Node 2, zone/ { z = 1 } z && $1 == "start_pfn:" { print $2; exit }' /proc/zoneinfo)
	[ -n "$pfn" ] || fail "no start_pfn of node 2 in /proc/zoneinfo"
	echo "$pfn" >"$f" || fail "$f rejected PFN $pfn"
	common_bad "$f" "$pfn"
	rejected "$f" '-1\n'
	rejected "$f" '0x7fffffffffffff\n'
	printf '%s' "$pfn" >"$f" || bad "$f rejected PFN $pfn with no newline"
	grep -q "^pfn=$(printf '%#x' "$pfn") node=2 " "$f" || bad "$f reads '$(cat "$f")' after $pfn"
}

# The dax device the table's DAX lines name: node 3's, unbound (the spm
# group, later, hands it to kmem).
dax_device() {
	local d
	d=$(devdax_on_node 3) || fail "cannot make a devdax device on node 3"
	echo "$DAXS/$d"
}

case_each_file_rejects_bad_input() {
	local file kind args dax='' n=0
	# sources off: no pass of klruscand changes period_max_ms meanwhile
	local saved
	saved=$(cat /proc/sys/vm/pghot_record_*_enable | paste -sd' ')
	for file in /proc/sys/vm/pghot_record_*_enable; do echo 0 >"$file"; done
	while read -r file kind args; do
		if [ "${file%%/*}" = DAX ]; then
			[ -n "$dax" ] || dax=$(dax_device) || return 1
			file=$dax/${file#DAX/}
		fi
		if [ "${file#\?}" != "$file" ]; then
			file=${file#\?}
			[ -e "$file" ] || { echo "$file: absent (needs hardware: not checked)"; continue; }
		fi
		[ -e "$file" ] || { fail "$file is not there"; return 1; }
		echo "$file: $kind $args"
		# shellcheck disable=SC2086 # args are words
		"check_$kind" "$file" $args
		n=$((n + 1))
	done < <(rows)
	echo "$n files checked"
	[ "$n" -ge 10 ] || fail "only $n files checked"
	# shellcheck disable=SC2086
	set -- $saved
	for file in /proc/sys/vm/pghot_record_*_enable; do echo "$1" >"$file"; shift; done
	[ "$BAD" = 0 ] || fail "$BAD bad-input checks failed"
}

# Every writable file the stack adds is in the table: the table cannot
# fall behind a new knob.
case_every_writable_file_is_listed() {
	local f listed missing=0 n=0 dax
	dax=$(dax_device) || return 1
	listed=$(rows | awk '{ print $1 }' | sed -e "s|^DAX/|$dax/|" -e 's|^?||')
	for f in /proc/sys/vm/pghot_* /proc/sys/vm/klruscand_* /proc/sys/vm/ibs_* \
		/sys/kernel/debug/pghot/* /sys/kernel/debug/klruscand/* \
		/sys/kernel/debug/ibs_access/* "$dax"/spm_* /sys/devices/system/node/node*/spm_*; do
		[ -e "$f" ] || continue
		n=$((n + 1))
		[ -n "$(find "$f" -maxdepth 0 -perm -u+w)" ] || continue
		[ "$f" != /sys/kernel/debug/ibs_access/inject ] || continue
		grep -qxF "$f" <<<"$listed" || { echo "not in the table: $f"; missing=$((missing + 1)); }
	done
	echo "$n files of the stack's found"
	[ "$n" -gt 10 ] || fail "found only $n of the stack's files: the globs are wrong"
	[ "$missing" = 0 ] || fail "$missing writable files are not in the table"
}

ktap_main "$@"
