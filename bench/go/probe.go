// go-bench probe: Go's own costs on this host, measured by small Go
// programs, printed as one JSON object: a "latency" overlay of schedlab's
// model (runtime_ns.g_create, g_exit, stack_acquire; os_ns.g_switch) and
// "measurements", every figure with its median, p10, p90, sample count and
// method, as `schedlab calibrate` writes them.  What each figure means, and
// how it maps onto schedlab's parameters, is in README.md ("Probes").
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
)

type figure struct {
	Median  float64 `json:"median"`
	P10     float64 `json:"p10"`
	P90     float64 `json:"p90"`
	Samples int     `json:"samples"`
	Method  string  `json:"method"`
}

func summarize(xs []float64, method string) figure {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	at := func(q float64) float64 { return s[int(q*float64(len(s)-1)+0.5)] }
	return figure{Median: round1(at(0.5)), P10: round1(at(0.1)), P90: round1(at(0.9)),
		Samples: len(s), Method: method}
}

func round1(x float64) float64 {
	if x < 0 {
		return -round1(-x)
	}
	return float64(int64(x*10+0.5)) / 10
}

const (
	batch   = 100 // goroutines per sample: within a P's local run queue (256)
	samples = 2000
)

//go:noinline
func emptyG(wg *sync.WaitGroup) { wg.Done() }

//go:noinline
func deepFrame(depth int) byte {
	var frame [16 << 10]byte // past the starting stack: the stack grows
	frame[depth] = byte(depth)
	return frame[(depth*7)%len(frame)]
}

var deepSink byte

func deepG(wg *sync.WaitGroup) {
	deepSink += deepFrame(1)
	wg.Done()
}

// createExit: at GOMAXPROCS=1, batch goroutines started in a loop (timed:
// create), then the starter blocks and they run to their end (timed until
// it runs again: each one's switch in, its body -- one WaitGroup Done --,
// its exit and the switch to the next).  grow: the previous batch's
// goroutines grew their stacks, so the free goroutines the next batch
// reuses have none and each create takes a fresh stack.
func createExit(n int, grow bool) (create, run []float64) {
	body := emptyG
	if grow {
		body = deepG
	}
	var wg sync.WaitGroup
	for i := 0; i < n+20; i++ { // the first 20 warm the free lists
		wg.Add(batch)
		t0 := nanotime()
		for k := 0; k < batch; k++ {
			go body(&wg)
		}
		t1 := nanotime()
		wg.Wait()
		t2 := nanotime()
		if i >= 20 {
			create = append(create, float64(t1-t0)/batch)
			run = append(run, float64(t2-t1)/batch)
		}
	}
	return
}

// goschedSwitch: two goroutines each calling runtime.Gosched in a loop at
// GOMAXPROCS=1; each call is one switch from one to the other.
func goschedSwitch(n int) []float64 {
	const rounds = 1000
	var out []float64
	for i := 0; i < n/10; i++ {
		var wg sync.WaitGroup
		wg.Add(2)
		start := make(chan struct{})
		var t0, t1 int64
		for g := 0; g < 2; g++ {
			go func() {
				<-start
				for k := 0; k < rounds; k++ {
					runtime.Gosched()
				}
				wg.Done()
			}()
		}
		close(start)
		runtime.Gosched() // both waiting on start run, and meet in their loops
		t0 = nanotime()
		wg.Wait()
		t1 = nanotime()
		out = append(out, float64(t1-t0)/(2*rounds))
	}
	return out
}

// chanHandoff: two goroutines trading a token over unbuffered channels at
// GOMAXPROCS=1; per hop (a send to the parked peer, then parking on the
// reply: one switch).
func chanHandoff(n int) []float64 {
	const rounds = 1000
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	var out []float64
	for i := 0; i < n/10; i++ {
		t0 := nanotime()
		for k := 0; k < rounds; k++ {
			ping <- k
			<-pong
		}
		out = append(out, float64(nanotime()-t0)/(2*rounds))
	}
	close(ping)
	return out
}

// wakeParkedM: at GOMAXPROCS=2, a goroutine spinning on one P readies one
// parked on a channel while the other P is idle (its M asleep on a futex):
// the time from the send to the woken goroutine running.  The sender keeps
// its P busy, so the readied goroutine must be taken by the M woken for the
// idle P (Go's wakep, then stealing from the sender's run queue).
func wakeParkedM(n int) []float64 {
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	// ack is buffered: the woken goroutine goes straight back to waiting
	// on wake, on its own P, and does not wait for the sender to take it
	wake, ack := make(chan int64), make(chan int64, 1)
	go func() {
		for t0 := range wake {
			ack <- nanotime() - t0
		}
	}()
	var out []float64
	for i := 0; i < n; i++ {
		// long enough for the other P's M to give up spinning and park
		spinFor(200000)
		wake <- nanotime()
		// the sender stays busy until the woken goroutine has run
		var d int64
		for got := false; !got; {
			select {
			case d = <-ack:
				got = true
			default:
				pause()
			}
		}
		out = append(out, float64(d))
	}
	close(wake)
	return out
}

func clamp0(x float64) float64 {
	if x < 0 {
		return 0
	}
	return x
}

func spinFor(ns int64) {
	end := nanotime() + ns
	for nanotime() < end {
		pause()
	}
}

type probeReport struct {
	RuntimeNs    map[string]float64 `json:"runtime_ns"`
	OsNs         map[string]float64 `json:"os_ns"`
	Measurements map[string]figure  `json:"measurements"`
	Go           string             `json:"go"`
}

func probeMain() {
	if len(os.Args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: %s probe\n", os.Args[0])
		os.Exit(2)
	}
	// No collection while measuring: a GC would land in some samples, and
	// Go 1.19 sizes new stacks from what it scanned (adaptive stack start).
	debug.SetGCPercent(-1)
	runtime.GOMAXPROCS(1)

	create, run := createExit(samples, false)
	createFresh, _ := createExit(samples, true)
	gosched := goschedSwitch(samples)
	handoff := chanHandoff(samples)
	wake := wakeParkedM(samples / 4)

	m := map[string]figure{
		"go_create_ns": summarize(create, fmt.Sprintf("GOMAXPROCS=1: %d `go f()` in a loop, per goroutine; "+
			"the free goroutines reused keep their stacks", batch)),
		"go_create_fresh_stack_ns": summarize(createFresh, "as go_create_ns, the previous batch having "+
			"grown its stacks (a 16 KiB frame), so each create takes a new stack"),
		"go_run_exit_ns": summarize(run, fmt.Sprintf("GOMAXPROCS=1: the %d goroutines just made run "+
			"(one WaitGroup Done each) and end while their maker waits, per goroutine: switch in, "+
			"body, exit, switch to the next", batch)),
		"go_gosched_switch_ns": summarize(gosched, "GOMAXPROCS=1: two goroutines calling runtime.Gosched "+
			"1000 times each, per call (one switch, through the global run queue)"),
		"go_chan_handoff_ns": summarize(handoff, "GOMAXPROCS=1: a token over two unbuffered channels, "+
			"1000 round trips, per hop"),
		"go_wake_parked_m_ns": summarize(wake, "GOMAXPROCS=2: a goroutine parked on a channel is sent "+
			"to by one spinning on the other P while this P is idle (its M parked, 200 us after it "+
			"last ran); send to the woken goroutine running"),
	}
	// The overlay's figures, each from its samples, under its model path.
	sw := m["go_gosched_switch_ns"].Median / 2
	var half, exit, stack []float64
	for _, x := range gosched {
		half = append(half, x/2)
	}
	for _, x := range run {
		exit = append(exit, clamp0(x-2*sw))
	}
	for _, x := range createFresh {
		stack = append(stack, clamp0(x-m["go_create_ns"].Median))
	}
	m["os_ns.g_switch"] = summarize(half, "half of go_gosched_switch_ns: a switch is one switch "+
		"out of a goroutine and one into another, with Go's scheduler between them")
	m["runtime_ns.g_create"] = m["go_create_ns"]
	m["runtime_ns.g_exit"] = summarize(exit, "go_run_exit_ns less two of os_ns.g_switch's median "+
		"(the switch into the goroutine and out of it)")
	m["runtime_ns.stack_acquire"] = summarize(stack, "go_create_fresh_stack_ns less go_create_ns's "+
		"median: the stack a create without a cached one takes")
	rep := probeReport{
		RuntimeNs: map[string]float64{
			"g_create":      m["runtime_ns.g_create"].Median,
			"g_exit":        m["runtime_ns.g_exit"].Median,
			"stack_acquire": m["runtime_ns.stack_acquire"].Median,
		},
		OsNs:         map[string]float64{"g_switch": m["os_ns.g_switch"].Median},
		Measurements: m,
		Go:           runtime.Version(),
	}
	out, _ := json.Marshal(rep)
	fmt.Println(string(out))
}
