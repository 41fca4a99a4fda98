/* Failures of the native runtime's resources made on purpose, so that
 * tests (tests/check_api.c) can check what follows a real one: a run that
 * ends with a message, a process that goes on.  Set before sl_run, from a
 * test process of its own; nothing else touches them. */
#ifndef SCHEDLAB_NATIVE_FAULTS_H
#define SCHEDLAB_NATIVE_FAULTS_H

#include <stdbool.h>

struct natp_faults {
	_Atomic int threads;     /* threads that may still start (-1: any number) */
	bool memory_low;         /* the machine's available memory reads as none */
};
extern struct natp_faults natp_faults;

#endif
