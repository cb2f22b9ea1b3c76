/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rk-testpmd: an interactive RDMA workbench on DPDK ports, with
 * dpdk-testpmd's command line: EAL options, "--", then the app's own.
 *   rk-testpmd -l 0-1 --vdev=net_memif0 -- -i
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "rk_cli.h"
#include "rdma.h"
#include "responder.h"
#include "rk_io_dpdk.h"
#include "testpmd.h"

struct rk_tp rk_tp = { .fwd_lcore = RTE_MAX_LCORE, .nb_cores = 1 };

static void
usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [EAL options] -- [options]\n"
		"  -i, --interactive       the command prompt (Tab completes, ? lists choices)\n"
		"      --cmdline-file FILE run the commands of FILE first (same syntax as the prompt)\n"
		"      --nb-cores N        forwarding cores: 0 forwards on the main lcore, 1 on a\n"
		"                          worker lcore (default 1; needs two lcores in -l)\n"
		"      --portmask MASK     hex mask of the ports to use (default: all)\n"
		"      --stats-period S    print the forward statistics every S seconds while forwarding\n"
		"      --forward-mode NAME the first engine (io, mac, rxonly, impair, gen, rdma, responder; default io)\n"
		"  -h, --help              this text\n"
		"  -V, --version           the version\n"
		"Without -i, the commands of --cmdline-file run, forwarding starts if no command\n"
		"started it, and Enter (or end of input, SIGINT, SIGTERM) stops it and exits\n"
		"(with --nb-cores 0 only SIGINT or SIGTERM: forwarding holds the main lcore);\n"
		"the exit status is 1 when a command of the file failed.\n",
		prog);
}

/* Whether @p path is a readable regular file; else one line says why. */
static bool
rk_tp_file_readable(const char *path)
{
	struct stat st;

	int err = stat(path, &st) != 0 || access(path, R_OK) != 0 ? errno :
		  S_ISDIR(st.st_mode) ? EISDIR : 0;

	if (err != 0)
		fprintf(stderr, "rk-testpmd: cannot read command file %s: %s\n", path,
			strerror(err));
	return err == 0;
}

static volatile sig_atomic_t sig_term;

static void
on_signal(int sig)
{
	/* Ctrl-C ends forwarding, not the app; SIGTERM ends both. */
	rk_tp.stop_fwd = 1;
	if (sig == SIGTERM)
		sig_term = 1;
}

static int
parse_args(int argc, char **argv, bool *interactive, const char **file, uint64_t *portmask)
{
	static const struct option longopts[] = {
		{ "interactive", no_argument, NULL, 'i' },
		{ "cmdline-file", required_argument, NULL, 'f' },
		{ "nb-cores", required_argument, NULL, 'c' },
		{ "portmask", required_argument, NULL, 'p' },
		{ "stats-period", required_argument, NULL, 's' },
		{ "forward-mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	char *end;

	optind = 1;
	opterr = 0;
	while ((c = rk_cli_getopt(argc, argv, ":ih", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			*interactive = true;
			break;
		case 'f':
			*file = optarg;
			break;
		case 'c': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*optarg == '\0' || *end != '\0' || v > 1) {
				fprintf(stderr, "rk-testpmd: --nb-cores: 0 or 1\n");
				return 2;
			}
			rk_tp.nb_cores = (unsigned int)v;
			break;
		}
		case 'p':
			errno = 0;
			*portmask = strtoull(optarg, &end, 16);
			if (*optarg == '\0' || *end != '\0' || errno != 0 || *portmask == 0) {
				fprintf(stderr, "rk-testpmd: --portmask: a non-zero hex mask\n");
				return 2;
			}
			break;
		case 's':
			rk_tp.stats_period = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || !(rk_tp.stats_period >= 0) ||
			    rk_tp.stats_period > 86400) {
				fprintf(stderr, "rk-testpmd: --stats-period: seconds, 0..86400\n");
				return 2;
			}
			break;
		case 'm':
			if (rk_tp_set_fwd(optarg) != 0) {
				fprintf(stderr, "rk-testpmd: --forward-mode: unknown engine %s\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout, "rk-testpmd");
			return 1;
		default:
			rk_cli_refused("rk-testpmd", c, argc, argv);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rk-testpmd: unexpected argument %s\n", argv[optind]);
		return 2;
	}
	return 0;
}

/* Without -i: forward until Enter, end of input or a signal. */
static void
run_until_enter(void)
{
	if (!rk_tp.forwarding && rk_tp_fwd_start(stdout) != 0)
		return;
	if (!rk_tp.forwarding)
		return;
	printf("Press enter to exit\n");
	fflush(stdout);
	while (!rk_tp.stop_fwd) {
		fd_set rd;
		struct timeval tv = { 0, 100000 };
		char c;

		FD_ZERO(&rd);
		FD_SET(0, &rd);
		if (select(1, &rd, NULL, NULL, &tv) > 0 && (read(0, &c, 1) <= 0 || c == '\n'))
			break;
	}
	rk_tp_fwd_stop(stdout);
}

int
main(int argc, char **argv)
{
	bool interactive = false;
	const char *file = NULL;
	uint64_t portmask = UINT64_MAX;
	struct rk_io_dpdk_args args;
	unsigned int nb_cmds = 0;
	int n, rc, failed = 0;

	/* Answers and errors in the order of the commands, also into a pipe or file. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* --help and --version without the EAL (no devices probed): as the
	 * first argument, or the first after "--". */
	for (int i = 1; i < argc; i++) {
		const char *a = strcmp(argv[i], "--") == 0 && i + 1 < argc ? argv[i + 1]
			      : i == 1 ? argv[i] : NULL;

		if (a != NULL && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
			usage(stdout, "rk-testpmd");
			return 0;
		}
		if (a != NULL && (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0)) {
			rk_cli_version("rk-testpmd");
			return 0;
		}
		if (strcmp(argv[i], "--") == 0)
			break;
	}
	rk_tp.engine = &rk_tp_fwd_io;
	/* EAL options before "--", as the other tools (without it the EAL gets
	 * defaults that need no set-up); our options are checked first, so a
	 * bad one is one line, not the EAL's start-up and its usage. */
	rk_io_dpdk_split_args(argc, argv, "rk-testpmd", &args);
	args.app_argv[0] = (char *)"rk-testpmd";
	rc = parse_args(args.app_argc, args.app_argv, &interactive, &file, &portmask);
	if (rc != 0)
		return rc == 1 ? 0 : 2;
	/* a command file that cannot be read is a wrong option: said before the EAL starts */
	if (file != NULL && !rk_tp_file_readable(file))
		return 2;
	n = rte_eal_init(args.eal_argc, args.eal_argv);
	if (n < 0) {
		fprintf(stderr, "rk-testpmd: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 2;
	}
	rk_tp.pool = rte_pktmbuf_pool_create("rk_tp_pool", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					     (int)rte_socket_id());
	if (rk_tp.pool == NULL) {
		fprintf(stderr, "rk-testpmd: no mbuf pool: %s\n", rte_strerror(rte_errno));
		rte_eal_cleanup();
		return 1;
	}
	if (rk_tp_ports_init(portmask) != 0) {
		if (portmask != UINT64_MAX && rte_eth_dev_count_avail() > 0)
			fprintf(stderr, "rk-testpmd: --portmask %#" PRIx64 " takes none of the %u "
				"ports\n", portmask, rte_eth_dev_count_avail());
		else
			fprintf(stderr, "rk-testpmd: no usable port (add one with the EAL's --vdev "
				"or -a)\n");
		rte_eal_cleanup();
		return 1;
	}
	if (rk_tp.nb_cores > 0 && rte_get_next_lcore(-1, 1, 0) >= RTE_MAX_LCORE)
		printf("One lcore: forwarding runs on the main lcore, Ctrl-C stops it\n");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (uint16_t p = 0; p < rk_tp.nb_ports; p++)
		if (rk_tp.ports[p].present && rk_tp_port_start(p) != 0)
			printf("Port %u: cannot start\n", p);
	rc = 0;
	if (file != NULL && (failed = rk_tp_cmdline_run(file, false, &nb_cmds)) < 0)
		rc = 1;
	if (rc == 0 && !rk_tp.quit && !sig_term) {
		if (interactive)
			rk_tp_cmdline_run(NULL, true, NULL);
		else
			run_until_enter();
	}
	if (rk_tp_resp.running)
		rk_tp_resp_stop(stdout);
	if (rk_tp.forwarding)
		rk_tp_fwd_stop(stdout);
	rk_tp_rdma_objs_free();
	rk_tp_rdma_close_all();
	for (uint16_t p = 0; p < rk_tp.nb_ports; p++)
		if (rk_tp.ports[p].present) {
			rk_tp_pcap_stop(p);
			rk_tp_port_stop(p);
			rte_eth_dev_close(p);
		}
	printf("Bye...\n");
	rte_eal_cleanup();
	/* Without -i, a script's run: a command that failed fails the run. */
	if (failed > 0 && !interactive) {
		printf("%d of %u commands failed\n", failed, nb_cmds);
		rc = 1;
	}
	return rc;
}
