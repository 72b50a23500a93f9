// SPDX-License-Identifier: GPL-2.0
/*
 * tiertool: the guest's C helpers and the benchmark's workload in one
 * program, on one library (bench/tierlib.c). It runs the applet it is
 * called as (tests/build-guest-bins links each applet's name to it, and
 * the benchmark copies it as tierbench), or the one its first argument
 * names:
 *
 *   tiertool APPLET [ARGS...]      tiertool --list
 *
 * Each applet documents itself at the top of its own file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tiertool.h"

static const struct applet {
	const char *name;
	int (*main)(int argc, char **argv);
} applets[] = {
	{ "hold-node", hold_node_main },
	{ "place-pages", place_pages_main },
	{ "promote-watch", promote_watch_main },
	{ "pte-thp", pte_thp_main },
	{ "splice-hold", splice_hold_main },
	{ "spm-probe", spm_probe_main },
	{ "tierbench", tierbench_main },
	{ "tiercheck", tiercheck_main },
};

#define NR_APPLETS (sizeof(applets) / sizeof(applets[0]))

static void list(FILE *f)
{
	size_t i;

	for (i = 0; i < NR_APPLETS; i++)
		fprintf(f, "%s%s", i ? " " : "", applets[i].name);
	fprintf(f, "\n");
}

int main(int argc, char **argv)
{
	const char *name = program_invocation_short_name;
	size_t i;

	if (!strcmp(name, "tiertool")) {
		if (argc == 2 && !strcmp(argv[1], "--list")) {
			list(stdout);
			return 0;
		}
		if (argc < 2) {
			fprintf(stderr, "usage: tiertool APPLET [ARGS...]; applets: ");
			list(stderr);
			return 2;
		}
		argc--;
		argv++;
		name = argv[0];
	}
	for (i = 0; i < NR_APPLETS; i++) {
		if (strcmp(name, applets[i].name))
			continue;
		/* Error messages name the applet, not tiertool. */
		program_invocation_short_name = (char *)applets[i].name;
		return applets[i].main(argc, argv);
	}
	fprintf(stderr, "tiertool: no applet '%s'; the applets are: ", name);
	list(stderr);
	return 2;
}
