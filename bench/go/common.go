// The Go twins of the programs in examples/, in one binary:
//
//	schedlab-go-bench NAME [PROCS [N]]
//
// runs the twin of examples/NAME.c with GOMAXPROCS=PROCS (0: Go's default)
// and prints the same line of figures (examples/common.h).  The same binary
// has the twins of the catalog workloads (`twin`, twin.go) and the probes of
// Go's own costs (`probe`, probe.go).
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
)

var programs = map[string]func(){
	"skynet":   skynetMain,
	"pingpong": pingpongMain,
	"spawn":    spawnMain,
	"fib":      fibMain,
	"yield":    yieldMain,
	"echo":     echoMain,
	"blocked":  blockedMain,
}

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "twin" {
		twinMain()
		return
	}
	if len(os.Args) >= 2 && os.Args[1] == "probe" {
		probeMain()
		return
	}
	if len(os.Args) >= 2 && os.Args[1] == "record" {
		recordMain()
		return
	}
	if len(os.Args) < 2 || programs[os.Args[1]] == nil {
		fmt.Fprintf(os.Stderr, "usage: %s skynet|pingpong|spawn|fib|yield|echo|blocked [PROCS [N]]\n"+
			"       %s twin WORKLOAD PROCS SEED | twin list\n       %s probe\n"+
			"       %s record PROGRAM PROCS SEED TRACE | record list\n",
			os.Args[0], os.Args[0], os.Args[0], os.Args[0])
		os.Exit(2)
	}
	programs[os.Args[1]]()
}

func args(def int64) int64 {
	argv := os.Args[2:]
	if len(argv) > 2 {
		fmt.Fprintf(os.Stderr, "usage: %s %s [PROCS [N]]\n", os.Args[0], os.Args[1])
		os.Exit(2)
	}
	n := def
	for i, a := range argv {
		v, err := strconv.ParseInt(a, 10, 64)
		if err != nil || v < int64(i) {
			fmt.Fprintf(os.Stderr, "%s: bad argument '%s'\n", os.Args[0], a)
			os.Exit(2)
		}
		if i == 0 && v > 0 {
			runtime.GOMAXPROCS(int(v))
		} else if i == 1 {
			n = v
		}
	}
	return n
}

func report(name string, n, ops, result, ns int64) {
	fmt.Printf("%s n=%d result=%d ns=%d ns_per_op=%.1f\n", name, n, result, ns,
		float64(ns)/float64(ops))
}
