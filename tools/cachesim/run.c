// SPDX-License-Identifier: GPL-2.0
/*
 * One simulation per child process: a policy's globals and maps start
 * from their initial values every time, a policy that crashes takes only
 * its own run down, and runs can go in parallel.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim.h"

struct run_reply {
	int ret;
	struct sim_result res;
	char err[512];
};

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= w;
	}
	return 0;
}

int sim_run_isolated(const struct sim_trace *t, const struct sim_setup *s,
		     const struct sim_config *cfg, struct sim_result *res,
		     char *err, size_t len)
{
	struct run_reply reply;
	size_t got = 0;
	int fds[2], status;
	pid_t pid;

	if (pipe(fds))
		return snprintf(err, len, "pipe: %s", strerror(errno)), -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return snprintf(err, len, "fork: %s", strerror(errno)), -errno;
	}
	if (!pid) {
		close(fds[0]);
		memset(&reply, 0, sizeof(reply));
		reply.ret = sim_run(t, s, cfg, &reply.res, reply.err,
				    sizeof(reply.err));
		fflush(NULL);
		_exit(write_all(fds[1], &reply, sizeof(reply)) ? 2 : 0);
	}
	close(fds[1]);
	while (got < sizeof(reply)) {
		ssize_t r = read(fds[0], (char *)&reply + got, sizeof(reply) - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(reply)) {
		if (WIFSIGNALED(status))
			snprintf(err, len, "%s: the simulation died of signal %d (%s)",
				 s->policy, WTERMSIG(status),
				 strsignal(WTERMSIG(status)));
		else
			snprintf(err, len, "%s: the simulation exited with %d",
				 s->policy, WEXITSTATUS(status));
		return -ECHILD;
	}
	*res = reply.res;
	if (reply.ret)
		snprintf(err, len, "%s", reply.err);
	return reply.ret;
}
