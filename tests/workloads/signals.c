/* SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only) */
/*
 * signals: tells every SIGINT and SIGTERM it receives and who sent it, for launch mode's
 * signal handling (a terminal's Ctrl-C, one faultline passed on, one received twice).
 *
 *   signals [LINGER_MS]                       (default 300 ms)
 *
 * Prints "ready", then for each SIGINT or SIGTERM a line "SIGINT code C pid P" (C: si_code,
 * 128 for SI_KERNEL as a terminal sends it, 0 for SI_USER as kill(2) does; P: the sender, 0
 * for the kernel). LINGER_MS after the first one, so that a second copy has time to arrive, it
 * exits 0. It never waits for SIGUSR1: the protocol of workload.h stops at its step 1 (the
 * signals are blocked, and taken with sigtimedwait).
 */
#include "workload.h"

#define USAGE "signals [LINGER_MS]"
#define MAX_LINGER_MS 600000

static void tell(const siginfo_t *si)
{
	char line[96];

	snprintf(line, sizeof(line), "%s code %d pid %d\n",
		 si->si_signo == SIGINT ? "SIGINT" : "SIGTERM", si->si_code, (int)si->si_pid);
	wl_say(line);
}

int main(int argc, char **argv)
{
	struct timespec left = { 0, 0 };
	unsigned long ms;
	struct wl_args a;
	bool got = false;
	siginfo_t si;
	sigset_t set;
	uint64_t end = 0;

	wl_init(argc, argv, &a, USAGE);
	if (a.nargs > 1)
		wl_usage(USAGE);
	ms = wl_arg_ulong(&a, 0, 300, MAX_LINGER_MS, USAGE);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	wl_say("ready\n");
	for (;;) {
		uint64_t now = wl_now_ns();

		if (got && now >= end)
			return 0;
		if (got) {
			left.tv_sec = (time_t)((end - now) / 1000000000ULL);
			left.tv_nsec = (long)((end - now) % 1000000000ULL);
		}
		if (sigtimedwait(&set, &si, got ? &left : NULL) < 0) {
			if (errno != EAGAIN && errno != EINTR)
				wl_die("sigtimedwait");
			continue;
		}
		tell(&si);
		if (!got)
			end = wl_now_ns() + ms * 1000000ULL;
		got = true;
	}
}
