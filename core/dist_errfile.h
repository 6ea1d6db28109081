/* SPDX-License-Identifier: GPL-2.0-or-later */
/* torch's @record error file (TORCHELASTIC_ERROR_FILE), as torch's
 * ErrorHandler.record_exception writes it (torch/distributed/elastic/
 * multiprocessing/errors/error_handler.py): {"message": {"message":
 * "Type: text", "extraInfo": {"py_callstack": ..., "timestamp": ...}}}, or
 * "message" a plain string where a launcher wrote it. */
#ifndef DIST_ERRFILE_H
#define DIST_ERRFILE_H

/* The first line of the error TEXT records, malloc'd; NULL when TEXT is
 * not such a file (or out of memory). */
char *dist_errfile_summary(const char *text);

#endif
