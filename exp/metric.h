/* The registry of a run report's metrics: the one list that compare's
 * table, the report's tables, regress's gates and baselines, the manual's
 * list and the tests read.  A metric is a number below a report's
 * "metrics" object (cli/run_cmd.c writes it); adding one is a row here
 * plus the code that measures it.
 *
 * Every consumer aggregates a metric the same way: the mean over a
 * scenario's seeds (compare, report: with a 95% Student-t interval;
 * regress: the per-seed values paired, their median change, and across
 * cases the geometric mean), so the registry carries no aggregation of
 * its own. */
#ifndef SCHEDLAB_EXP_METRIC_H
#define SCHEDLAB_EXP_METRIC_H

#include <stdbool.h>
#include <stddef.h>

enum metric_unit {
	MU_NS,      /* a duration, shown in the unit that suits it */
	MU_RATE,    /* per second; the report names the unit (unit_path) */
	MU_COUNT,
	MU_PUS,     /* a number of PUs, two decimals */
	MU_FRAC,    /* a fraction, shown as a percentage; its change in pp */
};

struct metric {
	const char *path;      /* below a report's "metrics": "sched_latency_ns.p50" */
	const char *label;     /* the tables' row: "sched latency p50" */
	const char *name;      /* the short name regress gates: "sched_p50" */
	enum metric_unit unit;
	int better;            /* -1 lower is better, +1 higher is better */
	bool only_if_any;      /* a table row only when some run has it (requests) */
	const char *unit_path; /* MU_RATE: the report's key that names its unit */
};

extern const struct metric metric_table[];
extern const int metric_count;

/* By short name, or by path; -1 if none. */
int metric_index(const char *name);
int metric_index_by_path(const char *path);
/* "makespan, throughput, ..." (every short name), cut to fit size. */
void metric_names(char *buf, size_t size);
/* The same list for a help text: lines of at most width columns, the
 * first starting at column first, the others indented by indent. */
void metric_names_wrapped(char *buf, size_t size, int first, int indent, int width);
/* The unit's name in CSV and JSON ("ns", "/s", "count", "PUs",
 * "fraction"; a rate's is the report's). */
const char *metric_unit_name(enum metric_unit u);

/* The half-width of the 95% interval of the mean of n values of standard
 * deviation sd (Student's t); 0 below two values. */
double metric_ci95(int n, double sd);

/* "12.31 ms ±0.42 (n=3)": a mean over n of nall runs, with its interval
 * (ci95, shown from two values), in m's unit (rate: that unit's name);
 * "-" with no value. */
void metric_format_mean(char *buf, size_t size, const struct metric *m, const char *rate,
			double mean, double ci95, int n, int nall);

#endif
