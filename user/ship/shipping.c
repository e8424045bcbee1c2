// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)
/* What both senders share: headers as curl takes them, URLs joined. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "ship/ship.h"

void ship__header_line(const char *kv, char *buf, size_t len)
{
	const char *eq = strchr(kv, '=');
	int klen = eq ? (int)(eq - kv) : (int)strlen(kv);

	snprintf(buf, len, "%.*s: %s", klen, kv, eq ? eq + 1 : "");
}

double ship__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

bool ship__join_url(const char *base, const char *path, char *buf, size_t len)
{
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	return (size_t)snprintf(buf, len, "%.*s%s", (int)n, base, path) < len;
}
