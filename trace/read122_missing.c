/* Until the Go 1.22+ reader (trace/read122.c) is merged, a trace with a
 * 1.22+ header is refused by name.  read122.c replaces this file. */
#include "trace/import.h"

#include "util/util.h"

struct ti_reader *ti_open_go122(const char *path, struct err *e)
{
	err_set(e, "%s: offset 0: Go 1.22+ traces: not supported in this build", path);
	return NULL;
}
