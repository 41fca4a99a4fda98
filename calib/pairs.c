/* Pairs of PUs by relation (pairs.h). */
#include <stdio.h>

#include "calib/pairs.h"

static unsigned pu_of_core(const struct topo *t, int core)
{
	return t->pus[t->cores[core].first_pu].os_index;
}

static void add(struct cal_pair *out, int *n, const char *name, const char *what, enum cal_rel rel,
		unsigned a, unsigned b, int hops)
{
	struct cal_pair *p = &out[(*n)++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->what, sizeof(p->what), "%s", what);
	p->rel = rel;
	p->pu_a = a;
	p->pu_b = b;
	p->hops = hops;
}

int cal_pairs(const struct topo *t, struct cal_pair *out, bool with_same_pu)
{
	int n = 0;
	if (with_same_pu)
		add(out, &n, "same_pu", "the same PU", CAL_SAME_PU, t->pus[0].os_index,
		    t->pus[0].os_index, 0);
	for (int c = 0; c < t->ncores; c++)
		if (t->cores[c].npus > 1) {
			const struct topo_pu *p = &t->pus[t->cores[c].first_pu];
			add(out, &n, "smt", "SMT siblings", CAL_SMT, p[0].os_index, p[1].os_index, 0);
			break;
		}
	bool group = false, package = false;
	bool hop_done[TOPO_MAX_HOPS + 1] = { false };
	for (int a = 0; a < t->ncores; a++)
		for (int b = a + 1; b < t->ncores; b++) {
			enum topo_rel r = topo_core_rel(t, a, b);
			if (r == TOPO_REL_GROUP && !group) {
				group = true;
				add(out, &n, "group", "two cores of one core group", CAL_GROUP,
				    pu_of_core(t, a), pu_of_core(t, b), 0);
			} else if (r == TOPO_REL_PACKAGE && !package) {
				package = true;
				add(out, &n, "package", "two core groups of one package", CAL_PACKAGE,
				    pu_of_core(t, a), pu_of_core(t, b), 0);
			} else if (r == TOPO_REL_REMOTE) {
				int h = topo_hops(t, t->cores[a].node, t->cores[b].node);
				if (h < 1)
					h = 1;
				if (h <= TOPO_MAX_HOPS && !hop_done[h]) {
					hop_done[h] = true;
					char name[24], what[64];
					snprintf(name, sizeof(name), "hops%d", h);
					snprintf(what, sizeof(what), "two packages %d hop%s apart", h,
						 h > 1 ? "s" : "");
					add(out, &n, name, what, CAL_HOPS, pu_of_core(t, a), pu_of_core(t, b), h);
				}
			}
		}
	/* hops in order, as the hop lists are */
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (out[i].rel == CAL_HOPS && out[j].rel == CAL_HOPS && out[j].hops < out[i].hops) {
				struct cal_pair tmp = out[i];
				out[i] = out[j];
				out[j] = tmp;
			}
	return n;
}
