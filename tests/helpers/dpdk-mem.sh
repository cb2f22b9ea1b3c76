# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the tests that start DPDK programs: MEM, the EAL's memory
# options: hugepages when at least 64 are free (--in-memory), anonymous
# memory otherwise (--no-huge -m 512 --no-shconf).
if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 64 ] 2>/dev/null; then
	MEM="--in-memory"
else
	MEM="--no-huge -m 512 --no-shconf"
fi
