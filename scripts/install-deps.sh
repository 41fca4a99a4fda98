#!/bin/sh
# Installs every Debian package schedlab's build, tests and scripts use.
# (libclang-rt-dev: clang's libFuzzer and sanitizer runtimes, for scripts/fuzz;
# only a recommendation of clang, which --no-install-recommends skips.)
# (mandoc and groff-base: the tests lint man/schedlab.1 and render it;
# bash-completion: where the completion is installed, and the shell it runs in.)
# Idempotent and non-interactive: safe to run on every CI start.
#   scripts/install-deps.sh           what building and testing need (Go too:
#                                     the trace suite checks traces with
#                                     `go tool trace`)
#   scripts/install-deps.sh --bench   the same; scripts/bench-native anchors on Go
#   scripts/install-deps.sh --cluster the same, plus Slurm (slurm-wlm,
#                                     munge), GNU parallel and iproute2 (the
#                                     network namespaces of its two hosts) for
#                                     scripts/cluster-check (docs/cluster.md);
#                                     left out of the plain install to keep it lean
#   scripts/install-deps.sh --report  also Chromium, which scripts/check-report
#                                     renders `schedlab report`'s HTML in
# (options combine)
# Besides the packages: benchstat (golang.org/x/perf, at the version pinned
# below), built with today's Go (scripts/find-go 1.26) through Go's module
# proxy into /usr/local/bin (root) or ~/go/bin: the regress suite checks
# regress's native comparison against it.
set -eu
here=$(dirname "$0")
BENCHSTAT_VERSION=v0.0.0-20260908200009-22c9c6c9d4da

install_benchstat() {
  if [ "$(id -u)" -eq 0 ]; then bindir=/usr/local/bin; else bindir="$HOME/go/bin"; fi
  if [ -x "$bindir/benchstat" ] && go=$("$here/find-go" 1.26 2>/dev/null) &&
     "$go" version -m "$bindir/benchstat" 2>/dev/null | grep -q "$BENCHSTAT_VERSION"; then
    return 0
  fi
  if ! go=$("$here/find-go" 1.26 2>/dev/null); then
    echo "install-deps: no Go 1.26 (scripts/find-go 1.26): benchstat not installed" >&2
    return 0
  fi
  echo "install-deps: installing benchstat $BENCHSTAT_VERSION into $bindir"
  GOBIN="$bindir" GOFLAGS=-mod=mod "$go" install "golang.org/x/perf/cmd/benchstat@$BENCHSTAT_VERSION" ||
    echo "install-deps: benchstat could not be installed (is Go's module proxy reachable?); the regress suite skips its check against it" >&2
}

PACKAGES="
  build-essential
  clang
  libclang-rt-dev
  meson
  ninja-build
  pkg-config
  hwloc
  libhwloc-dev
  libcjson-dev
  libgsl-dev
  check
  valgrind
  python3
  time
  golang-go
  jq
  gnuplot-nox
  mandoc
  groff-base
  bash-completion
"
for arg in "$@"; do
  case "$arg" in
    --bench) ;;
    --cluster) PACKAGES="$PACKAGES slurm-wlm munge parallel iproute2" ;;
    --report) PACKAGES="$PACKAGES chromium" ;;
    *) echo "install-deps: unknown option '$arg' (known: --bench, --cluster, --report)" >&2; exit 2 ;;
  esac
done

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  echo "install-deps: all packages present"
  install_benchstat
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing$missing"
$SUDO apt-get update -q
# shellcheck disable=SC2086  # word splitting of the package list is intended
$SUDO apt-get install -y -q --no-install-recommends $missing
install_benchstat
