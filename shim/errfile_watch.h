/* SPDX-License-Identifier: GPL-2.0-or-later */
/* After the program: which rank failed and with what error, read from the
 * error file torch's @record wrote (TORCHELASTIC_ERROR_FILE), as torchrun's
 * summary names it. The shim execs the program in its own place, so the
 * report comes from a small watcher started just before (through a middle
 * process, so that it is not the program's child; sharing the shim's memory,
 * so that it costs no copy of it): it holds no file but stderr, sleeps until
 * the program has ended, prints one line when the file has an error, and
 * exits. */
#ifndef SHIM_ERRFILE_WATCH_H
#define SHIM_ERRFILE_WATCH_H

/* Starts the watcher when TORCHELASTIC_ERROR_FILE names a file; the caller
 * goes on to exec the program (or to exit). */
void errfile_watch_start(void);

#endif
