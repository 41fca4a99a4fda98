// The Go twins of schedlab's catalog workloads (workloads/catalog/*.json
// and the built-ins of workloads/builtin.c):
//
//	go-bench twin WORKLOAD PROCS SEED
//	go-bench twin list
//
// A twin runs the workload with GOMAXPROCS=PROCS and prints one JSON object
// whose figures mean what schedlab's report means by them (cli/run_cmd.c,
// core/proc.c rt_collect): makespan from the start to the last goroutine's
// exit, throughput as requests (or, without requests, goroutines completed)
// per second of makespan, scheduling latency (Go's own histogram,
// runtime/metrics /sched/latencies:seconds) and request latency from the
// request's arrival to its answer.  What each twin is, and what is not the
// same as natively, is in README.md.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

//go:linkname nanotime runtime.nanotime
func nanotime() int64

type twin struct {
	name    string
	summary string
	body    func(seed uint64)
}

var twins []twin // twin_workloads.go fills it, in catalog order

// ---- The run: goroutines' exits, requests ----

// Exit times and counts in padded shards, chosen by the exiting goroutine's
// stack address, so that a million exits do not all write one cache line
// (schedlab keeps them per M).
const nshards = 64

type shard struct {
	last int64
	n    int64
	_    [48]byte
}

var (
	runStart int64
	live     sync.WaitGroup
	shards   [nshards]shard
	reqMu    sync.Mutex
	reqNs    []int64
)

// spawn starts f as a counted goroutine (the run ends when all have exited).
func spawn(f func()) {
	live.Add(1)
	go func() {
		f()
		gexit()
	}()
}

// gexit records the calling goroutine's exit; every counted goroutine
// calls it last.
func gexit() {
	now := nanotime()
	var here byte
	s := &shards[(uintptr(unsafe.Pointer(&here))>>13)%nshards]
	for {
		old := atomic.LoadInt64(&s.last)
		if now <= old || atomic.CompareAndSwapInt64(&s.last, old, now) {
			break
		}
	}
	atomic.AddInt64(&s.n, 1)
	live.Done()
}

// requests collects one handler's request latencies; merged at its end.
type requests struct{ ns []int64 }

func (r *requests) record(since int64) {
	d := nanotime() - since
	if d < 0 {
		d = 0
	}
	r.ns = append(r.ns, d)
}

func (r *requests) flush() {
	reqMu.Lock()
	reqNs = append(reqNs, r.ns...)
	reqMu.Unlock()
}

func fail(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "go-bench twin: "+format+"\n", a...)
	os.Exit(1)
}

// ---- Work, as native/plat.c does it ----

const (
	gapNS         = 5000  // a longer pause between two clock reads is not spinning
	baselineAbove = 50000 // computes this long check the thread's CPU time at gaps
)

// compute spins on the monotonic clock until ns of work are done, as
// natp_work does (a vDSO clock read and a PAUSE per turn).  Natively, time
// the OS takes the thread away counts as work, and time the runtime gives
// the CPU to another goroutine (a preemption) does not: the rest of the
// work is done when the G runs again.  Go preempts a spinning goroutine
// without telling it, so a pause in the clock reads longer than gapNS is
// examined.  If the goroutine came back on another thread, none of it is
// work.  Otherwise the pause less the CPU time its thread spent meanwhile
// (another goroutine ran, or the runtime's own work) is the OS's, and
// counts as work -- less what other goroutines' computes on this thread
// already counted of it as theirs (the OS took the thread while one of
// them ran).  Short computes do not take the thread's CPU time (a system
// call, ~0.3 us): a pause inside one counts as work whole.
func compute(ns int64) {
	if ns <= 0 {
		return
	}
	start := nanotime()
	prev, done := start, int64(0)
	tid, cpu0, spun, others0 := 0, int64(0), int64(0), int64(0)
	var ts syscall.Timespec
	if ns >= baselineAbove {
		tid = rawGettid()
		rawThreadCPU(&ts)
		cpu0 = ts.Nano()
		others0 = atomic.LoadInt64(stolenOn(tid))
	}
	for done < ns {
		spinTurn()
		now := nanotime()
		gap := now - prev
		prev = now
		if gap <= gapNS {
			done += gap
			spun += gap
			continue
		}
		t := rawGettid()
		if tid == 0 {
			done += gap
			atomic.AddInt64(stolenOn(t), gap)
			continue
		}
		rawThreadCPU(&ts)
		cpu := ts.Nano()
		others := atomic.LoadInt64(stolenOn(t))
		credit := int64(0)
		if t == tid {
			credit = gap - (cpu - cpu0 - spun) - (others - others0)
			if credit < 0 {
				credit = 0
			}
			if credit > gap {
				credit = gap
			}
			atomic.AddInt64(stolenOn(t), credit)
		}
		done += credit
		tid, cpu0, spun, others0 = t, cpu, 0, others+credit
	}
}

// The OS's time each thread's computes counted as work (by thread id, a
// slot may be shared by two threads, which only errs on the side of less).
var stolen [1024]int64

func stolenOn(tid int) *int64 { return &stolen[tid&1023] }

// spinTurn is one turn's spin hint, and the turn's preemption point: the
// call's stack check is where Go stops a goroutine it has asked to yield
// (as natp_work checks its stop flag each turn).  Without it the loop calls
// only nosplit code (nanotime, pause), and a preemption request waits for
// a signal to land on one of the loop's few own instructions, tens of
// milliseconds late.
//
//go:noinline
func spinTurn() {
	pause()
}

// syscallFor blocks the thread in the kernel for ns, as natp_syscall: a
// real system call, so the P is handed off as Go does for a slow read.
func syscallFor(ns int64) {
	ts := syscall.NsecToTimespec(ns)
	for {
		var rem syscall.Timespec
		err := syscall.Nanosleep(&ts, &rem)
		if err != syscall.EINTR {
			return
		}
		ts = rem
	}
}

func sleepFor(ns int64) {
	time.Sleep(time.Duration(ns))
}

// ---- Memory, as natp_touch ----

var touchSink uint64

const (
	sequential = iota
	random
)

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// touch reads (or writes zero to) every 64-byte line of [off, off+bytes) of
// region once: in order, or in a random order (a stride coprime with the
// line count from a seeded start).  An offset wraps; a range stops at the
// region's end.
func touch(region []byte, off, bytes int64, pattern int, write bool, seed uint64) {
	size := int64(len(region))
	if size == 0 {
		return
	}
	if off < 0 {
		off = 0
	}
	off %= size
	if bytes > size-off {
		bytes = size - off
	}
	lines := uint64(bytes+63) / 64
	if lines == 0 {
		return
	}
	b := region[off:]
	step, at := uint64(1), uint64(0)
	if pattern == random && lines > 1 {
		step = (seed | 1) % lines
		for gcd(step, lines) != 1 {
			step++
		}
		at = (seed >> 17) % lines
	}
	var acc uint64
	for i := uint64(0); i < lines; i++ {
		acc += uint64(b[at*64])
		if write {
			b[at*64] = 0
		}
		at = (at + step) % lines
	}
	touchSink += acc
}

// ---- Random draws: schedlab's distribution families (workloads/dist.c) ----

// A SplitMix64 source under math/rand, one per goroutine that draws, seeded
// from its maker's stream: math/rand's own source costs ~5 KiB and ~10 us
// to seed, too much for a goroutine that lives 2 us.
type splitmix struct{ s uint64 }

func (m *splitmix) Uint64() uint64 {
	m.s += 0x9e3779b97f4a7c15
	z := m.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
func (m *splitmix) Int63() int64    { return int64(m.Uint64() >> 1) }
func (m *splitmix) Seed(seed int64) { m.s = uint64(seed) }

func newRand(seed uint64) *rand.Rand { return rand.New(&splitmix{seed}) }

// child is a stream for a goroutine r's owner is about to start.
func child(r *rand.Rand) *rand.Rand { return newRand(r.Uint64()) }

func roundClamp(x float64) int64 {
	if !(x > 0) {
		return 0
	}
	if x >= 1<<62 {
		return 1 << 62
	}
	return int64(math.Round(x))
}

// uniform over the whole numbers min..max (both included), as dist.c does
// when both bounds are whole.
func uniform(r *rand.Rand, min, max int64) int64 {
	span := float64(max - min + 1)
	x := math.Floor(float64(min) + r.Float64()*span)
	if x > float64(max) {
		x = float64(max)
	}
	return roundClamp(x)
}

func exponential(r *rand.Rand, mean float64) int64 { return roundClamp(r.ExpFloat64() * mean) }

func lognormal(r *rand.Rand, median, sigma float64) int64 {
	return roundClamp(math.Exp(math.Log(median) + sigma*r.NormFloat64()))
}

// ---- Simulated clients (workloads/net.c) ----
//
// Natively schedlab's clients are no file descriptors: each arrival is an
// instant in a heap that the runtime's netpoller checks, and the parked
// reader is readied when it is due.  Here the reader waits for the instant
// on Go's runtime timer (time.Sleep), which the scheduler checks the same
// way (findrunnable, and the netpoller's timeout when all Ps are idle).

type listener struct {
	closed   bool         // a closed loop: every client at the start
	count    int          // connections, or clients
	gap      func() int64 // an open loop's gap between arrivals
	requests func() int64 // per connection (drawn from its own stream)
	think    func(r *rand.Rand) int64
	r        *rand.Rand
	next     int64 // the next connection's arrival
	made     int
}

type conn struct {
	l       *listener
	r       *rand.Rand
	next    int64 // the next request's arrival
	unread  int64 // requests the client has still to send, the next included
	arrival int64 // the request being handled arrived then
}

func waitUntil(t int64) {
	if d := t - nanotime(); d > 0 {
		time.Sleep(time.Duration(d))
	}
}

// accept returns the next connection, parking until it arrives; nil when
// the listener has no more.
func (l *listener) accept() *conn {
	if l.made == l.count {
		return nil
	}
	if l.made == 0 {
		l.next = runStart
		if !l.closed {
			l.next += l.gap()
		}
	}
	waitUntil(l.next)
	c := &conn{l: l, r: child(l.r), next: l.next}
	c.unread = l.requests()
	l.made++
	if !l.closed && l.made < l.count {
		l.next += l.gap()
	}
	return c
}

// read waits for the client's next request; false when the client has sent
// its last and had it answered.
func (c *conn) read() bool {
	if c.unread == 0 {
		return false
	}
	waitUntil(c.next)
	c.arrival = c.next
	return true
}

// write answers the request; the client sends its next one a think time
// later.
func (c *conn) write() {
	c.unread--
	if c.unread > 0 {
		c.next = nanotime() + c.l.think(c.r)
	}
}

// ---- Figures ----

// schedlab's histogram buckets (util/hist.c): exact below 128, then 64 per
// power of two; a quantile is the top of the bucket holding its rank,
// capped at the largest value recorded.
const histSubBits = 6
const histSub = 1 << histSubBits

func bucketTop(v uint64) uint64 {
	if v < 2*histSub {
		return v
	}
	e := uint(63)
	for v>>e == 0 {
		e--
	}
	shift := e - histSubBits
	return ((v>>shift)+1)<<shift - 1
}

func quantile(sorted []int64, q float64) int64 {
	n := float64(len(sorted))
	rank := int(math.Ceil(q * n))
	if rank < 1 {
		rank = 1
	}
	v := uint64(sorted[rank-1])
	top := bucketTop(v)
	if max := uint64(sorted[len(sorted)-1]); top > max {
		top = max
	}
	return int64(top)
}

const schedMetric = "/sched/latencies:seconds"

func schedHist() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: schedMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		fail("runtime/metrics has no %s in %s", schedMetric, runtime.Version())
	}
	return s[0].Value.Float64Histogram()
}

// histQuantile: the rank's bucket's upper bound in ns (its lower one for
// the last, unbounded bucket), as schedlab reports a bucket's top.
func histQuantile(before, after *metrics.Float64Histogram, q float64) (int64, uint64) {
	var total uint64
	counts := make([]uint64, len(after.Counts))
	for i := range after.Counts {
		counts[i] = after.Counts[i] - before.Counts[i]
		total += counts[i]
	}
	if total == 0 {
		return 0, 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range counts {
		seen += c
		if seen >= rank {
			b := after.Buckets[i+1]
			if math.IsInf(b, 1) {
				b = after.Buckets[i]
			}
			if b < 0 {
				b = 0
			}
			return int64(math.Round(b * 1e9)), total
		}
	}
	return 0, total
}

type latency struct {
	P50 int64 `json:"p50"`
	P99 int64 `json:"p99"`
}

type twinReport struct {
	Workload         string   `json:"workload"`
	Procs            int      `json:"procs"`
	Seed             uint64   `json:"seed"`
	MakespanNs       int64    `json:"makespan_ns"`
	ThroughputPerS   float64  `json:"throughput_per_s"`
	ThroughputUnit   string   `json:"throughput_unit"`
	Completed        int64    `json:"completed"`
	Requests         int64    `json:"requests"`
	SchedLatencyNs   *latency `json:"sched_latency_ns"`
	SchedSamples     uint64   `json:"sched_latency_samples"`
	RequestLatencyNs *latency `json:"request_latency_ns"`
	Go               string   `json:"go"`
}

func twinUsage() {
	fmt.Fprintf(os.Stderr, "usage: %s twin WORKLOAD PROCS SEED | %s twin list\n", os.Args[0], os.Args[0])
	os.Exit(2)
}

func twinMain() {
	argv := os.Args[2:]
	if len(argv) == 1 && argv[0] == "list" {
		for _, t := range twins {
			fmt.Println(t.name)
		}
		return
	}
	if len(argv) != 3 {
		twinUsage()
	}
	var tw *twin
	for i := range twins {
		if twins[i].name == argv[0] {
			tw = &twins[i]
		}
	}
	if tw == nil {
		fmt.Fprintf(os.Stderr, "go-bench twin: no twin of workload '%s' (`go-bench twin list` names them)\n", argv[0])
		os.Exit(2)
	}
	procs, err := strconv.Atoi(argv[1])
	if err != nil || procs < 1 || procs > 4096 {
		fmt.Fprintf(os.Stderr, "go-bench twin: PROCS: expected a whole number from 1 to 4096, got '%s'\n", argv[1])
		os.Exit(2)
	}
	seed, err := strconv.ParseUint(argv[2], 10, 64)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-bench twin: SEED: expected a whole number from 0 to 2^64-1, got '%s'\n", argv[2])
		os.Exit(2)
	}
	runtime.GOMAXPROCS(procs)
	rep := runTwin(tw, procs, seed)
	out, _ := json.Marshal(rep)
	fmt.Println(string(out))
}

func runTwin(tw *twin, procs int, seed uint64) twinReport {
	prepare(tw.name) // the workload's shared regions, made before the start as schedlab does
	runtime.GC()
	before := schedHist()
	runStart = nanotime()
	for i := range shards {
		shards[i] = shard{}
	}
	shards[0].last = runStart
	spawn(func() { tw.body(seed) })
	live.Wait()
	after := schedHist()
	var last, completed int64
	for i := range shards {
		if shards[i].last > last {
			last = shards[i].last
		}
		completed += shards[i].n
	}
	rep := twinReport{Workload: tw.name, Procs: procs, Seed: seed, MakespanNs: last - runStart,
		Completed: completed, Requests: int64(len(reqNs)), Go: runtime.Version()}
	s := float64(rep.MakespanNs) / 1e9
	rep.ThroughputUnit = "goroutines/s"
	if s > 0 {
		rep.ThroughputPerS = float64(completed) / s
		if rep.Requests > 0 {
			rep.ThroughputPerS = float64(rep.Requests) / s
		}
	}
	if rep.Requests > 0 {
		rep.ThroughputUnit = "requests/s"
		sort.Slice(reqNs, func(i, j int) bool { return reqNs[i] < reqNs[j] })
		rep.RequestLatencyNs = &latency{quantile(reqNs, 0.5), quantile(reqNs, 0.99)}
	}
	p50, n := histQuantile(before, after, 0.5)
	p99, _ := histQuantile(before, after, 0.99)
	if n > 0 {
		rep.SchedLatencyNs = &latency{p50, p99}
	}
	rep.SchedSamples = n
	return rep
}
