// Recording for issue 22's validation (scripts/bench-replay):
//
//	go-bench record PROGRAM PROCS SEED TRACE [flight]
//	go-bench record list
//
// runs PROGRAM -- one of replay_programs.go's or a twin (`twin list`) -- at
// GOMAXPROCS=PROCS with Go's execution tracer on (runtime/trace), writes the
// trace to TRACE, and prints the twin's JSON object (twin.go: makespan from
// the start to the last counted goroutine's exit, Go's own scheduling
// latency histogram) plus "program", "trace", "trace_bytes" and
// "trace_window_ns" (from trace.Start's return to trace.Stop's call: what
// the trace covers) and "host" (the CPU the run got: see host below).
// TRACE "-" runs the program the same way without the tracer (no "trace"
// keys), to show what tracing itself costs the program.  The figures are the traced run's: the tracer's own
// cost (tens to hundreds of ns per event) is part of what was recorded, and
// what an importer sees.
//
// With "flight" the trace is not written as the run goes: a flight recorder
// (Go 1.25+) keeps the run's last part in memory and TRACE gets its
// snapshot, taken once the last counted goroutine has exited -- the window
// a user who snapshots a live service has to replay.  "trace_window_ns" is
// then the whole run's; what the snapshot covers is in the trace.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/trace"
	"strconv"
)

type recordReport struct {
	Program string `json:"program"`
	twinReport
	Trace         string `json:"trace,omitempty"`
	TraceBytes    int64  `json:"trace_bytes,omitempty"`
	TraceWindowNs int64  `json:"trace_window_ns"`
	Host          *host  `json:"host"`
}

// host: what the process's threads got of the CPUs during the run, from
// /proc/self/task/*/schedstat (CPU time, time runnable but waiting), as
// schedlab's native report's "host" object (core/result.c rt_host_busy):
// busy when they waited at least 10% of their runnable time, and 1 ms in
// all.  Threads that exit during the run are not counted (Go keeps its
// threads).  nil without schedstat.
type host struct {
	CPUNs      int64   `json:"cpu_ns"`
	RunDelayNs int64   `json:"run_delay_ns"`
	CPUShare   float64 `json:"cpu_share"`
	Busy       bool    `json:"busy"`
}

func schedstat() (map[string][2]int64, bool) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, false
	}
	m := map[string][2]int64{}
	for _, e := range ents {
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/schedstat")
		if err != nil {
			continue
		}
		var cpu, delay int64
		if _, err := fmt.Sscan(string(b), &cpu, &delay); err == nil {
			m[e.Name()] = [2]int64{cpu, delay}
		}
	}
	return m, len(m) > 0
}

func hostOf(before, after map[string][2]int64) *host {
	var h host
	for tid, a := range after {
		b := before[tid]
		h.CPUNs += a[0] - b[0]
		h.RunDelayNs += a[1] - b[1]
	}
	if h.CPUNs <= 0 {
		return nil
	}
	h.CPUShare = float64(h.CPUNs) / float64(h.CPUNs+h.RunDelayNs)
	h.Busy = h.CPUShare < 0.9 && h.RunDelayNs >= 1000000
	return &h
}

func recordUsage() {
	fmt.Fprintf(os.Stderr, "usage: %s record PROGRAM PROCS SEED TRACE|- [flight] | %s record list\n", os.Args[0], os.Args[0])
	os.Exit(2)
}

func findRecordable(name string) *twin {
	for i := range replayPrograms {
		if replayPrograms[i].name == name {
			return &replayPrograms[i]
		}
	}
	for i := range twins {
		if twins[i].name == name {
			return &twins[i]
		}
	}
	return nil
}

// runRecorded is runTwin with the tracer started after the collection that
// runTwin makes before its start (which would otherwise open the trace with
// a stop-the-world and the GC's workers), and stopped once the last counted
// goroutine has exited.
func runRecorded(prog *twin, procs int, seed uint64, f *os.File, flight bool) (twinReport, int64, *host) {
	prepare(prog.name)
	runtime.GC()
	// the CPU the run got is read outside the traced window: a replay counts
	// what the main goroutine does in it (it ends with the trace)
	ss0, haveSS := schedstat()
	var fr *flightRecorder
	if f != nil && flight {
		fr = newFlight()
		if err := fr.start(); err != nil {
			fmt.Fprintf(os.Stderr, "go-bench record: runtime/trace: %v\n", err)
			os.Exit(1)
		}
	} else if f != nil {
		if err := trace.Start(f); err != nil {
			fmt.Fprintf(os.Stderr, "go-bench record: runtime/trace: %v\n", err)
			os.Exit(1)
		}
	}
	t0 := nanotime()
	before := schedHist()
	runStart = nanotime()
	for i := range shards {
		shards[i] = shard{}
	}
	shards[0].last = runStart
	spawn(func() { prog.body(seed) })
	live.Wait()
	after := schedHist()
	window := nanotime() - t0
	if fr != nil {
		if err := fr.snapshot(f); err != nil {
			fmt.Fprintf(os.Stderr, "go-bench record: runtime/trace: flight recorder snapshot: %v\n", err)
			os.Exit(1)
		}
	} else if f != nil {
		trace.Stop()
	}
	var h *host
	if ss1, ok := schedstat(); ok && haveSS {
		h = hostOf(ss0, ss1)
	}
	var last, completed int64
	for i := range shards {
		if shards[i].last > last {
			last = shards[i].last
		}
		completed += shards[i].n
	}
	rep := twinReport{Workload: prog.name, Procs: procs, Seed: seed, MakespanNs: last - runStart,
		Completed: completed, Requests: int64(len(reqNs)), Go: runtime.Version(),
		ThroughputUnit: "goroutines/s"}
	if s := float64(rep.MakespanNs) / 1e9; s > 0 {
		rep.ThroughputPerS = float64(completed) / s
	}
	p50, n := histQuantile(before, after, 0.5)
	p99, _ := histQuantile(before, after, 0.99)
	if n > 0 {
		rep.SchedLatencyNs = &latency{p50, p99}
	}
	rep.SchedSamples = n
	return rep, window, h
}

func recordMain() {
	argv := os.Args[2:]
	if len(argv) == 1 && argv[0] == "list" {
		for _, p := range replayPrograms {
			fmt.Printf("%s\t%s\n", p.name, p.summary)
		}
		for _, t := range twins {
			fmt.Printf("%s\t(twin) %s\n", t.name, t.summary)
		}
		return
	}
	flight := len(argv) == 5 && argv[4] == "flight"
	if len(argv) != 4 && !flight {
		recordUsage()
	}
	if flight && !flightAvailable {
		fmt.Fprintf(os.Stderr, "go-bench record: flight: the flight recorder needs a go-bench built with Go 1.25 or later (this one: %s)\n", runtime.Version())
		os.Exit(2)
	}
	if flight && argv[3] == "-" {
		fmt.Fprintf(os.Stderr, "go-bench record: flight: a snapshot needs a TRACE file, not '-'\n")
		os.Exit(2)
	}
	prog := findRecordable(argv[0])
	if prog == nil {
		fmt.Fprintf(os.Stderr, "go-bench record: no program '%s' (`go-bench record list` names them)\n", argv[0])
		os.Exit(2)
	}
	procs, err := strconv.Atoi(argv[1])
	if err != nil || procs < 1 || procs > 4096 {
		fmt.Fprintf(os.Stderr, "go-bench record: PROCS: expected a whole number from 1 to 4096, got '%s'\n", argv[1])
		os.Exit(2)
	}
	seed, err := strconv.ParseUint(argv[2], 10, 64)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-bench record: SEED: expected a whole number from 0 to 2^64-1, got '%s'\n", argv[2])
		os.Exit(2)
	}
	runtime.GOMAXPROCS(procs)
	if argv[3] == "-" {
		rep, window, h := runRecorded(prog, procs, seed, nil, false)
		out, _ := json.Marshal(recordReport{Program: prog.name, twinReport: rep,
			TraceWindowNs: window, Host: h})
		fmt.Println(string(out))
		return
	}
	f, err := os.Create(argv[3])
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-bench record: TRACE: %v\n", err)
		os.Exit(2)
	}
	rep, window, h := runRecorded(prog, procs, seed, f, flight)
	if err := f.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "go-bench record: %s: %v\n", argv[3], err)
		os.Exit(1)
	}
	st, err := os.Stat(argv[3])
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-bench record: %s: %v\n", argv[3], err)
		os.Exit(1)
	}
	out, _ := json.Marshal(recordReport{Program: prog.name, twinReport: rep, Trace: argv[3],
		TraceBytes: st.Size(), TraceWindowNs: window, Host: h})
	fmt.Println(string(out))
}
