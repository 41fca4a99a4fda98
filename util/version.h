#ifndef SCHEDLAB_UTIL_VERSION_H
#define SCHEDLAB_UTIL_VERSION_H

/* SCHEDLAB_VERSION (the release, from meson's project version) is defined
 * on every compiler command line. */

/* The git commit built, "266a826c0f1e" or "266a826c0f1e-dirty"; "unknown"
 * when built outside a git checkout. */
const char *schedlab_commit(void);

#endif
