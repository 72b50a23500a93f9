/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The applets of tiertool (tiertool.c), one per source file: each file's
 * former main().
 */
#ifndef TIERTOOL_H
#define TIERTOOL_H

int hold_node_main(int argc, char **argv);
int place_pages_main(int argc, char **argv);
int promote_watch_main(int argc, char **argv);
int pte_thp_main(int argc, char **argv);
int splice_hold_main(int argc, char **argv);
int spm_probe_main(int argc, char **argv);
int tierbench_main(int argc, char **argv);
int tiercheck_main(int argc, char **argv);

#endif
