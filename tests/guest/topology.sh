#!/bin/bash
# The guest has the tiered topology every other test relies on: two DRAM
# nodes with a CPU each, a CPU-less slow node in a lower memory tier, and a
# CPU-less node whose memory is reserved as legacy pmem (for dax / SPM).
# shellcheck source=tests/guest/lib.sh
source "$(dirname "$0")/lib.sh"

NODES=/sys/devices/system/node

case_dram_nodes_have_cpus() {
	[ "$(sysfs_read $NODES/node0/cpulist)" = 0 ] || fail "node0 cpus: $(cat $NODES/node0/cpulist)"
	[ "$(sysfs_read $NODES/node1/cpulist)" = 1 ] || fail "node1 cpus: $(cat $NODES/node1/cpulist)"
	[ -z "$(sysfs_read $NODES/node2/cpulist)" ] || fail "node2 should have no cpu"
}

case_memory_on_nodes_0_to_2() {
	local has
	has=$(sysfs_read $NODES/has_memory)
	echo "nodes with memory: $has"
	[ "$has" = 0-2 ] || fail "expected memory on nodes 0-2 only (node 3 reserved), got '$has'"
}

# The tier a node is in: memory_tierN whose nodelist contains it.
tier_of() {
	local t
	for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
		if numactl_in_list "$1" "$(sysfs_read "$t/nodelist")"; then
			echo "${t##*memory_tier}"
			return
		fi
	done
}

# Is node $1 in a list like "0-1,3"?
numactl_in_list() {
	local part lo hi
	IFS=, read -ra parts <<<"$2"
	for part in "${parts[@]}"; do
		lo=${part%-*} hi=${part#*-}
		[ "$1" -ge "$lo" ] && [ "$1" -le "$hi" ] && return 0
	done
	return 1
}

case_node2_in_lower_tier() {
	local t0 t1 t2
	grep . /sys/devices/virtual/memory_tiering/memory_tier*/nodelist || true
	t0=$(tier_of 0) t1=$(tier_of 1) t2=$(tier_of 2)
	[ -n "$t0" ] && [ -n "$t2" ] || fail "nodes 0 and 2 must each be in a memory tier"
	[ "$t0" = "$t1" ] || fail "nodes 0 and 1 are in different tiers ($t0, $t1)"
	[ "$t2" -gt "$t0" ] || fail "node 2 (tier $t2) is not below DRAM (tier $t0)"
}

case_hmat_latency_node2_slower() {
	local l0 l2
	l0=$(sysfs_read $NODES/node0/access0/initiators/read_latency)
	l2=$(sysfs_read $NODES/node2/access0/initiators/read_latency)
	echo "read latency: node0 $l0, node2 $l2"
	[ "$l2" -gt "$l0" ] || fail "HMAT does not make node 2 slower"
}

case_pmem_reserved_on_nodes_2_and_3() {
	local n ns
	for n in 2 3; do
		ns=$(pmem_namespace $n) || fail "no pmem namespace on node $n: memmap= reservation missing"
		echo "$ns: target_node $n, size $(cat "/sys/bus/nd/devices/$ns/size")"
	done
}

case_swap_and_zswap() {
	grep -q '^/dev/vdb' /proc/swaps || fail "no swap on /dev/vdb"
	[ "$(sysfs_read /sys/module/zswap/parameters/enabled)" = Y ] || fail "zswap is off"
}

case_numa_balancing_knob() {
	[ -w /proc/sys/kernel/numa_balancing ] || fail "no kernel.numa_balancing"
	echo 2 >/proc/sys/kernel/numa_balancing
	[ "$(cat /proc/sys/kernel/numa_balancing)" = 2 ] || fail "cannot select mode 2"
	echo 1 >/proc/sys/kernel/numa_balancing
}

# Memory bound to the slow node really lands there, and move_pages can move
# it to DRAM: the migration path every promotion test uses.
case_pages_move_between_tiers() {
	local out
	out=$(numactl --membind=2 -- /guest/bin/place-pages 2 0 64)
	echo "$out"
	grep -q '^moved 64/64 ' <<<"$out" || fail "pages did not move from node 2 to node 0"
}

ktap_main "$@"
