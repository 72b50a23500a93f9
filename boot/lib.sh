# shellcheck shell=bash
# Helpers shared by the host-side scripts. Sourced, never run.
#
# Every script works from these variables, which the Makefile exports and a
# user may set:
#   TOP     the clone (default: the directory above this file)
#   WORK    where the kernel tree, build directories, rootfs and boot logs
#           live (default: $TOP/work, ignored by git)
#   JOBS    parallel make jobs (default: CPUs + 1, so that both stay busy
#           while a job waits on make or the disk)

set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
WORK=${WORK:-$TOP/work}
JOBS=${JOBS:-$(($(nproc) + 1))}
# shellcheck disable=SC2034 # used by the scripts that source this file
SRC=$WORK/src
# tests/bisect builds another tree (STACK_BUILD_SRC) into other build
# directories (STACK_BUILD_ROOT); everything else, the guest's binaries
# too, uses $WORK/src. Prefixed: KSRC and the like are common in users'
# environments (out-of-tree module builds) and must not redirect us.
STACK_BUILD_SRC=${STACK_BUILD_SRC:-$SRC}
# The package's source with no patch applied, a git worktree of $SRC at
# the package's tag: what the matrix's TREE=pristine configs build.
PRISTINE=$WORK/pristine
# The same with only the SPM series applied (the "spm" group of the series
# file): what the matrix's TREE=spm-only configs build, to show that the
# series stands alone.
SPM_ONLY=$WORK/spm-only
PKG_TARBALL=${PKG_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
PKG_NAME=${PKG_NAME:-linux-source-6.12}
MATRIX=${MATRIX:-$TOP/defconfigs/matrix}
export TOP WORK JOBS

prog=$(basename "$(dirname "$0")")/$(basename "$0")

# --help or -h as the first argument of a script that sources this file
# prints the comment at the top of the script, which is its usage, and
# exits before the script does anything.
script_help() {
	awk 'NR == 1 && /^#!/ { next }
		/^# shellcheck/ { next }
		/^#/ { sub(/^# ?/, ""); print; next }
		{ exit }' "$0"
}
case "${1:-}" in -h | --help) script_help; exit 0 ;; esac

# One line on stderr, then exit 1 (user error) or the given code.
die() {
	local code=1
	if [ "$1" = "-c" ]; then code=$2; shift 2; fi
	echo "$prog: error: $*" >&2
	exit "$code"
}

info() { echo "$prog: $*" >&2; }

# Print a command before running it when V=1 (the reproducer).
run() {
	if [ "${V:-0}" = 1 ]; then echo "+ $*" >&2; fi
	"$@"
}

# Run a noisy command with its output in LOG; on failure show the tail of
# the log and stop with one line naming the log.
quiet() {
	local log=$1 what=$2 pid
	shift 2
	if [ "${V:-0}" = 1 ]; then
		echo "+ $*" >&2
		"$@" 2>&1 | tee "$log"
		return "${PIPESTATUS[0]}"
	fi
	if [ -t 2 ]; then
		"$@" >"$log" 2>&1 &
		pid=$!
		show_progress "$pid" "$what" log_progress "$log"
		wait "$pid" && return 0
	elif "$@" >"$log" 2>&1; then
		return 0
	fi
	tail -n 30 "$log" >&2
	die -c 2 "$what failed; full log: $log"
}

# show_progress PID WHAT COMMAND...: while PID runs, and only if stderr is a
# terminal, one line updated in place every second: WHAT and what COMMAND
# prints. Not a terminal (CI, a log): nothing, the callers' own lines say
# what ran.
show_progress() {
	local pid=$1 what=$2 width
	shift 2
	[ -t 2 ] || return 0
	width=$(($(tput cols 2>/dev/null || echo 80) - ${#what} - 6))
	while kill -0 "$pid" 2>/dev/null; do
		printf '\r\033[K  %s: %s' "$what" "$("$@" 2>/dev/null | cut -c1-"$((width > 10 ? width : 10))")" >&2
		sleep 1
	done
	printf '\r\033[K' >&2
}

# log_progress LOG: for show_progress: the kbuild steps (CC, LD...) in LOG so
# far, beside PROGRESS_TOTAL when set (the most an earlier build of that
# directory took), and its last line.
log_progress() {
	local n
	n=$(grep -c '^  [A-Z][A-Z0-9_]* ' "$1") || true
	printf '%s steps%s, last: %s\n' "${n:-0}" "${PROGRESS_TOTAL:+ (the biggest build here had $PROGRESS_TOTAL)}" \
		"$(tail -n 1 "$1" | sed 's/^ *//')"
}

# The sources of tiertool, the guest's one C program (its applets and
# library), and build_tiertool DIR LOG: compile it into DIR/tiertool and
# link each applet's name there to it (tests/guest/tiertool.c).
tiertool_sources() { printf '%s\n' "$TOP"/tests/guest/*.c "$TOP"/tests/guest/*.h "$TOP/bench/tierbench.c" "$TOP/bench/tierlib.c" "$TOP/bench/tierlib.h"; }
build_tiertool() {
	local dir=$1 log=$2 a
	quiet "$log" "building tiertool" \
		gcc -O2 -Wall -Werror -I "$TOP/tests/guest" -I "$TOP/bench" -o "$dir/tiertool" \
		"$TOP"/tests/guest/*.c "$TOP/bench/tierbench.c" "$TOP/bench/tierlib.c" -lnuma -lpthread -lm
	for a in $("$dir/tiertool" --list); do
		ln -sfn tiertool "$dir/$a"
	done
}

# Content hash of files and strings, used to decide whether cached work is
# still valid. Arguments that are existing files are hashed by content only,
# so the same file reached by another path gives the same hash.
hash_of() {
	local a
	for a in "$@"; do
		if [ -f "$a" ]; then
			sha256sum <"$a"
		else
			printf '%s\n' "$a"
		fi
	done | sha256sum | cut -c1-16
}

# tree_state TREE: what a build of TREE reads besides its .config, for a
# hash_of key: the commit and any uncommitted change.
tree_state() {
	git -C "$1" rev-parse HEAD
	git -C "$1" diff HEAD
}

pkg_version() {
	dpkg-query -W -f='${Version}' "$PKG_NAME" 2>/dev/null ||
		die "$PKG_NAME is not installed; run: make deps"
}

# Git tag for a package version (git refuses '~' and ':' in tag names).
pkg_tag() { echo "debian/$(pkg_version | tr '~:' '_%')"; }

# Names of the configs in the matrix, one per line.
matrix_names() { awk -F: '!/^[[:space:]]*(#|$)/ { gsub(/[[:space:]]/, "", $1); print $1 }' "$MATRIX"; }

# The words after "name:" on a config's matrix line.
matrix_line() {
	local line
	line=$(awk -v n="$1" '!/^[[:space:]]*#/ { i = index($0, ":"); k = substr($0, 1, i - 1); gsub(/[[:space:]]/, "", k); if (i && k == n) { print substr($0, i + 1); exit } }' "$MATRIX")
	[ -n "$line" ] || die "unknown CONFIG '$1'; valid names: $(matrix_names | tr '\n' ' ')"
	echo "$line"
}

# Boot settings of a config: the VAR=value words of its matrix line.
matrix_env() {
	local w
	for w in $(matrix_line "$1"); do
		case $w in *=*) echo "$w" ;; esac
	done
}

# The kernel tree a config builds from: $STACK_BUILD_SRC (the stack), or
# $PRISTINE for a matrix line with TREE=pristine.
config_tree() {
	local kv
	for kv in $(matrix_env "$1"); do
		case $kv in
		TREE=pristine) echo "$PRISTINE"; return ;;
		TREE=spm-only) echo "$SPM_ONLY"; return ;;
		TREE=*) die "matrix entry '$1' sets $kv; TREE can only be pristine or spm-only (or left out: the stack)" ;;
		esac
	done
	echo "$STACK_BUILD_SRC"
}

# Fragments of a config, as paths, in merge order.
matrix_fragments() {
	local line f
	line=$(matrix_line "$1") || exit 1
	for f in $line; do
		case $f in *=*) continue ;; esac
		[ -f "$TOP/defconfigs/$f.config" ] ||
			die "matrix entry '$1' names defconfigs/$f.config, which does not exist"
		echo "$TOP/defconfigs/$f.config"
	done
}

# The config that `make run` and friends use when CONFIG is not given.
default_config() {
	if matrix_names | grep -qx all; then echo all; else echo stock; fi
}

STACK=$TOP/linux.patch-stack

# Patch files named by the series file, in order (quilt format: comments
# and blank lines allowed).
series() {
	[ -f "$STACK/series" ] || die "linux.patch-stack/series is missing"
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$STACK/series" | awk 'NF { print $1 }'
}

# series_group NAME: the patches of one group of the series, the lines
# after its "# group: NAME" comment up to the next group.
series_group() {
	[ -f "$STACK/series" ] || die "linux.patch-stack/series is missing"
	awk -v g="$1" '/^# group: / { cur = $3; next } /^[[:space:]]*(#|$)/ { next } cur == g { print $1 }' "$STACK/series"
}

build_dir() { echo "${STACK_BUILD_ROOT:-$WORK/build}/$1"; }

kernel_image() { echo "$(build_dir "$1")/arch/x86/boot/bzImage"; }

# A command line as one copy-pasteable line, quoting only where needed.
show_cmd() {
	local a out=()
	for a in "$@"; do
		if [[ "$a" =~ [^][A-Za-z0-9_./:=,@%+!-] ]]; then
			out+=("'${a//\'/\'\\\'\'}'")
		else
			out+=("$a")
		fi
	done
	echo "${out[*]}"
}

# rerun_command CONFIG RESULTS_JSON: the one command that reruns what failed
# in that config's run: its failed test groups only (ONLY=), or the whole
# config when the build, the boot or a stage that is not a group failed
# alone (the kernel log and KUnit are checked whatever ONLY says).
rerun_command() {
	local groups
	groups=$(python3 - "$1" "$2" "$TOP/tests/groups" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[2]))
except (OSError, ValueError):
    sys.exit(0)
known = {l.split()[0] for l in open(sys.argv[3]) if l.split() and not l.startswith("#")}
print(" ".join(s["name"] for s in doc.get("stages", []) if s["failed"] and s["name"] in known))
PY
	)
	if [ -n "$groups" ]; then
		echo "make test CONFIG=$1 ONLY='$groups'"
	else
		echo "make test CONFIG=$1"
	fi
}

# config_delta OLD NEW: the lines of the .config NEW that set a symbol to
# another value than OLD does ("# CONFIG_X is not set" for one turned off),
# for a fragment that takes OLD to NEW.
config_delta() {
	awk '
	function sym(line) {
		if (line ~ /^CONFIG_[A-Za-z0-9_]+=/) { sub(/=.*/, "", line); return line }
		if (line ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/) { sub(/^# /, "", line); sub(/ is not set$/, "", line); return line }
		return ""
	}
	FNR == NR { s = sym($0); if (s != "") old[s] = $0; next }
	{ s = sym($0); if (s != "" && old[s] != $0 && !(old[s] == "" && $0 ~ /is not set$/)) print }
	' "$1" "$2"
}

# kbuild_env TREE: the environment and make arguments every kernel build of
# TREE uses (boot/build, boot/deb): ccache with CCACHE_BASEDIR=$WORK, so
# that another clone hits the same cache, and a fixed build identity, so
# that the same source gives the same objects and version.o does not change
# every build. Sets KBUILD_ARGS.
kbuild_env() {
	export ARCH=x86_64
	export CCACHE_BASEDIR=$WORK CCACHE_NOHASHDIR=true
	export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}
	KBUILD_BUILD_TIMESTAMP=$(git -C "$1" log -1 --format=%cd)
	export KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER=stack KBUILD_BUILD_HOST=qemu
	KBUILD_ARGS=(ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS")
}
