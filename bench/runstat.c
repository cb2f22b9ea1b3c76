/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * runstat: run a command and report its wall time, CPU time and peak RSS
 * (wait4's rusage of the child: ru_utime, ru_stime, ru_maxrss), with
 * microsecond resolution where /usr/bin/time gives 10 ms. On a shared,
 * noisy machine the CPU time of a single-threaded reader is a steadier
 * measure than its wall time: time spent descheduled does not count.
 *
 * usage: runstat -o FILE CMD [ARG...]
 * FILE gets one line:
 *   wall_ns N cpu_ns N user_ns N sys_ns N maxrss_kib N status N
 * stdin, stdout and stderr pass through to CMD; runstat exits with CMD's
 * status (128 + signal when it was killed).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t
tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	const char *out;
	uint64_t wall, user, sys;
	int st, code;
	pid_t pid;
	FILE *f;

	if (argc < 4 || strcmp(argv[1], "-o") != 0) {
		fprintf(stderr, "usage: runstat -o FILE CMD [ARG...]\n");
		return 125;
	}
	out = argv[2];
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("runstat: fork");
		return 125;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		fprintf(stderr, "runstat: %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("runstat: wait4");
			return 125;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wall = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
	       (uint64_t)(t1.tv_nsec - t0.tv_nsec);
	user = tv_ns(&ru.ru_utime);
	sys = tv_ns(&ru.ru_stime);
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	f = fopen(out, "w");
	if (f == NULL) {
		fprintf(stderr, "runstat: %s: %s\n", out, strerror(errno));
		return 125;
	}
	/* ru_maxrss is in KiB on Linux. */
	fprintf(f, "wall_ns %llu cpu_ns %llu user_ns %llu sys_ns %llu maxrss_kib %ld status %d\n",
		(unsigned long long)wall, (unsigned long long)(user + sys),
		(unsigned long long)user, (unsigned long long)sys, ru.ru_maxrss, code);
	fclose(f);
	return code;
}
