/* How a run that went wrong is told: Go's own words for a panic and a
 * deadlock, shared by `schedlab run' and the C API's sl_run. */
#include "policies/policy.h"

#include <stdio.h>

int rt_result_report_fatal(const struct rt_result *r, FILE *f)
{
	if (r->panicked) {
		fprintf(f, "panic: %s\n", r->panic);
		return EXIT_BADINPUT;
	}
	if (!r->deadlock)
		return 0;
	fprintf(f, "fatal error: all goroutines are asleep - deadlock!\n\n%s", r->blocked);
	if (r->blocked[sizeof(r->blocked) - 2] != '\0')
		fprintf(f, "...\n");
	fprintf(f, "(%llu goroutines blocked)\n", (unsigned long long)r->nblocked);
	return EXIT_FOUND;
}
