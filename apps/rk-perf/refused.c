/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest's options that rk-perf does not take. Each is known by its
 * perftest letter and long name so that a perftest command line fails at
 * the first of them with what rk-perf offers instead, never runs with
 * the option read another way or dropped.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "perf.h"

#define RAW "perftest's raw Ethernet test; frames of any kind: rk-gen"
#define GPU "memory of an accelerator; rk-perf's buffers are host memory"

static const struct perf_refused refused[] = {
	{ 'x', "gid-index", "GID index", "the GID is the address of --ip or --ip6" },
	{ 'e', "events", "completion events",
	  "rk-perf polls; --idle adaptive sleeps while idle" },
	{ 'X', "vector", "completion vector", "rk-perf polls its CQs" },
	{ 'I', "inline_size", "inline size", "the local IP is --ip" },
	{ 'M', "MGID", "multicast group", "rk-perf runs RC" },
	{ 'g', "mcg", "multicast", "rk-perf runs RC" },
	{ 'z', "comm_rdma_cm", "RDMA-CM exchange",
	  "rk-perf exchanges over TCP (-p); RDMA-CM peers: rk-interop" },
	{ 'R', "rdma_cm", "RDMA-CM connection",
	  "rk-perf exchanges over TCP (-p); RDMA-CM peers: rk-interop" },
	{ 'C', "report-cycles", "cycles report", "latencies are in microseconds" },
	{ 'O', "dualport", "dual port", "one DPDK port per process: -d" },
	{ 'f', "margin", "duration margin", "-D measures the whole duration" },
	{ 'B', "source_mac", "source MAC", RAW },
	{ 'E', "dest_mac", "destination MAC", RAW },
	{ 'J', "dest_ip", "destination IP", RAW },
	{ 'j', "source_ip", "source IP", "the local IP is --ip" },
	{ 'K', "dest_port", "destination port", RAW },
	{ 'k', "source_port", "source port", RAW },
	{ 'Y', "ethertype", "ethertype", RAW },
	{ 'Z', "server", "server role",
	  "the server is the end given no SERVER argument" },
	{ 'P', "client", "client role", "the client is the end given SERVER" },
	{ 'v', "mac_fwd", "MAC forwarding", RAW },
	{ 'G', "use_rss", "RSS", RAW },
	{ 'W', "report-counters", "counter report",
	  "--counters prints rdmakit's NIC-style counters" },
	{ 0, "use-srq", "SRQ", "each QP has its receive queue" },
	{ 0, "use-null-mr", "null MR", "rk-perf registers its buffers" },
	{ 0, "report-both", "both sides' report", "the client reports the run" },
	{ 0, "reversed", "reversed direction", "swap the ends' roles" },
	{ 0, "pkey_index", "P_Key index", "RoCEv2 uses the default P_Key" },
	{ 0, "burst_size", "packet pacing burst", "--rate_limit paces messages in software" },
	{ 0, "typical_pkt_size", "packet pacing size", "--rate_limit paces messages in software" },
	{ 0, "output", "output selection", "--json gives every result" },
	{ 0, "cpu_util", "CPU use report", "measure with time(1) or perf(1)" },
	{ 0, "out_json", "JSON file", "--json writes JSON on stdout" },
	{ 0, "out_json_file", "JSON file", "--json writes JSON on stdout" },
	{ 0, "latency_gap", "latency gap", "latency iterations run back to back" },
	{ 0, "flow_label", "flow label", "the flow label is 0" },
	{ 0, "retry_count", "retry count", "the retry count is 7" },
	{ 0, "dont_xchg_versions", "version exchange", "rk-perf's exchange is its own" },
	{ 0, "payload_file_path", "payload file", "payloads are rk-perf's pattern" },
	{ 0, "use_cuda", "CUDA memory", GPU },
	{ 0, "use_cuda_bus_id", "CUDA memory", GPU },
	{ 0, "use_cuda_dmabuf", "CUDA memory", GPU },
	{ 0, "use_cuda_pcie_mapping", "CUDA memory", GPU },
	{ 0, "cuda_mem_type", "CUDA memory", GPU },
	{ 0, "use_data_direct", "data direct", GPU },
	{ 0, "use_musa", "MUSA memory", GPU },
	{ 0, "use_musa_bus_id", "MUSA memory", GPU },
	{ 0, "use_musa_dmabuf", "MUSA memory", GPU },
	{ 0, "use_musa_pcie_mapping", "MUSA memory", GPU },
	{ 0, "use_rocm", "ROCm memory", GPU },
	{ 0, "use_rocm_dmabuf", "ROCm memory", GPU },
	{ 0, "use_neuron", "Neuron memory", GPU },
	{ 0, "use_neuron_dmabuf", "Neuron memory", GPU },
	{ 0, "use_hl", "Habana memory", GPU },
	{ 0, "use_mlu", "MLU memory", GPU },
	{ 0, "use_mlu_dmabuf", "MLU memory", GPU },
	{ 0, "use_opencl", "OpenCL memory", GPU },
	{ 0, "opencl_platform_id", "OpenCL memory", GPU },
	{ 0, "use_ib_dm_dmabuf", "device memory", GPU },
	{ 0, "gpu_touch", "GPU touch", GPU },
	{ 0, "mmap", "mmap'ed buffers", "rk-perf allocates its buffers" },
	{ 0, "mmap-offset", "mmap'ed buffers", "rk-perf allocates its buffers" },
	{ 0, "ipv6", "IPv6 exchange", "RoCEv2 over IPv6 is --ip6 ADDR" },
	{ 0, "ipv6-addr", "IPv6 exchange", "RoCEv2 over IPv6 is --ip6 ADDR" },
	{ 0, "raw_ipv6", "raw IPv6", RAW },
	{ 0, "report-per-port", "per-port report", "one DPDK port per process: -d" },
	{ 0, "odp", "on-demand paging", "rk-perf's buffers are registered up front" },
	{ 0, "use_hugepages", "hugepage buffers", "the EAL's options choose hugepages" },
	{ 0, "use_old_post_send", "old post_send", "rk-perf has one post path" },
	{ 0, "promiscuous", "promiscuous mode", RAW },
	{ 0, "sniffer", "sniffer", "--pcap FILE records every frame" },
	{ 0, "raw_mcast", "raw multicast", RAW },
	{ 0, "mr_per_qp", "MR per QP", "each QP already has its own MR" },
	{ 0, "dlid", "destination LID", "RoCEv2 addresses by IP" },
	{ 0, "wait_destroy", "wait before destroy", "rk-perf tears down at once" },
	{ 0, "flows", "flows", RAW },
	{ 0, "flows_burst", "flows burst", RAW },
	{ 0, "reply_every", "reply every", RAW },
	{ 0, "perform_warm_up", "bandwidth warm-up",
	  "--warmup N warms the latency tests up" },
	{ 0, "vlan_en", "VLAN", "--vlan ID tags every frame" },
	{ 0, "vlan_pcp", "VLAN priority", "-S N with --vlan sets the PCP" },
	{ 0, "recv_post_list", "receive post list", "receives are posted one at a time" },
	{ 0, "force-link", "link type", "RoCEv2 runs over Ethernet" },
	{ 0, "remote_mac", "remote MAC", RAW },
	{ 0, "local_mac", "local MAC", RAW },
	{ 0, "remote_ip", "remote IP", RAW },
	{ 0, "local_ip", "local IP", "the local IP is --ip" },
	{ 0, "remote_port", "remote port", RAW },
	{ 0, "local_port", "local port", RAW },
	{ 0, "no_lock", "no lock", "rk-perf runs one thread" },
	{ 0, "use_ooo", "out-of-order", "rk-perf's QPs deliver in order" },
	{ 0, "disable_pcie_relaxed", "PCIe ordering", "no PCIe device is used" },
	{ 0, "congest_type", "congestion control", "no congestion control in rk-perf" },
	{ 0, "aes_xts", "AES-XTS", "rk-perf does not encrypt" },
	{ 0, "log_dci_streams", "DC streams", "rk-perf runs RC" },
	{ 0, NULL, NULL, NULL },
};

const struct perf_refused *
perf_refused_options(void)
{
	return refused;
}

void
perf_refuse_option(const struct perf_refused *r, const char *given)
{
	bool letter = given[0] == '-' && given[1] != '-';

	fprintf(stderr, "rk-perf: %s is perftest's %s%s%s%s, which rk-perf does not "
		"implement; %s\n", given, r->meaning, letter ? " (--" : "", letter ? r->name : "",
		letter ? ")" : "", r->hint);
}
