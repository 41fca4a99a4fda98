// Real Go programs for issue 22's validation (scripts/bench-replay): each is
// recorded with runtime/trace (`go-bench record`, record.go), imported into a
// schedlab workload and replayed.  Unlike the twins these are not copies of a
// schedlab workload: they are the shapes of the Go runtime's own stress tests
// and of ordinary servers -- a spawn tree, a ping-pong, fan-out and fan-in
// over channels, a contended mutex, timers, system calls, and an HTTP server
// with its clients over loopback -- so that the importer meets what Go
// itself does (a sync.WaitGroup, a sync.Mutex's semaphore, the netpoller,
// time.Sleep's timers) rather than what schedlab's twins were written to
// resemble.  Each is sized to run 0.1-0.5 s at GOMAXPROCS=1 with a trace of
// a few MB at most.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"
)

var replayPrograms = []twin{
	{"rp-spawntree", "a tree of 4-way spawns 6 deep (5461 goroutines), 20 us each, parents wait (WaitGroup)", rpSpawnTree},
	{"rp-pingpong", "two goroutines, 10,000 round trips over unbuffered channels, 5 us per hop", rpPingPong},
	{"rp-fanout", "a producer, 8 workers over a channel of 64 (20,000 jobs, exp. 20 us), a collector", rpFanOut},
	{"rp-mutex", "8 goroutines x 2000 x (lock, 5 us, unlock, 20 us) on one sync.Mutex", rpMutex},
	{"rp-timers", "50 goroutines x 40 x (time.Sleep 2 ms, 30 us)", rpTimers},
	{"rp-syscall", "16 goroutines x 50 x (nanosleep 200 us, 50 us)", rpSyscall},
	{"rp-http", "net/http over loopback: 8 keep-alive clients x 200 GETs, 50 us per request", rpHTTP},
}

func rpSpawnTreeNode(level int, wg *sync.WaitGroup) {
	if level < 6 {
		var kids sync.WaitGroup
		kids.Add(4)
		for i := 0; i < 4; i++ {
			go func() { rpSpawnTreeNode(level+1, &kids) }()
		}
		compute(20 * us)
		kids.Wait()
	} else {
		compute(20 * us)
	}
	wg.Done()
}

func rpSpawnTree(seed uint64) {
	var root sync.WaitGroup
	root.Add(1)
	rpSpawnTreeNode(0, &root)
	root.Wait()
}

func rpPingPong(seed uint64) {
	ping, pong := make(chan int), make(chan int)
	spawn(func() {
		for k := 0; k < 10000; k++ {
			ping <- k
			<-pong
			compute(5 * us)
		}
	})
	spawn(func() {
		for k := 0; k < 10000; k++ {
			<-ping
			compute(5 * us)
			pong <- k
		}
	})
}

func rpFanOut(seed uint64) {
	r := newRand(seed)
	jobs := make(chan int64, 64)
	results := make(chan int64)
	var workers sync.WaitGroup
	workers.Add(8)
	for w := 0; w < 8; w++ {
		spawn(func() {
			for d := range jobs {
				compute(d)
				results <- d
			}
			workers.Done()
		})
	}
	spawn(func() {
		for i := 0; i < 20000; i++ {
			jobs <- exponential(r, float64(20*us))
		}
		close(jobs)
	})
	spawn(func() {
		workers.Wait()
		close(results)
	})
	var sum int64
	for d := range results {
		sum += d
	}
	if sum <= 0 {
		fail("rp-fanout: no work done")
	}
}

func rpMutex(seed uint64) {
	var mu sync.Mutex
	shared := 0
	for g := 0; g < 8; g++ {
		spawn(func() {
			for k := 0; k < 2000; k++ {
				mu.Lock()
				compute(5 * us)
				shared++
				mu.Unlock()
				compute(20 * us)
			}
		})
	}
	_ = shared
}

func rpTimers(seed uint64) {
	for g := 0; g < 50; g++ {
		spawn(func() {
			for k := 0; k < 40; k++ {
				time.Sleep(2 * time.Millisecond)
				compute(30 * us)
			}
		})
	}
}

func rpSyscall(seed uint64) {
	for g := 0; g < 16; g++ {
		spawn(func() {
			for k := 0; k < 50; k++ {
				syscallFor(200 * us)
				compute(50 * us)
			}
		})
	}
}

// rpHTTP serves GET /work on 127.0.0.1 (a free port): the handler computes
// 50 us and answers 1 KiB.  Eight clients, each with its own keep-alive
// connection, send 200 requests one after the other.  Then the server is
// shut and the clients' connections closed, and the program waits (up to a
// second) until the goroutines net/http started have exited, so that the
// trace ends with the program's own goroutines done.
func rpHTTP(seed uint64) {
	base := runtime.NumGoroutine()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail("rp-http: listen on 127.0.0.1: %v", err)
	}
	body := strings.Repeat("x", 1024)
	mux := http.NewServeMux()
	mux.HandleFunc("/work", func(w http.ResponseWriter, r *http.Request) {
		compute(50 * us)
		io.WriteString(w, body)
	})
	srv := &http.Server{Handler: mux}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	url := fmt.Sprintf("http://%s/work", ln.Addr())
	var clients sync.WaitGroup
	var transports []*http.Transport
	for c := 0; c < 8; c++ {
		tr := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}
		transports = append(transports, tr)
		cl := &http.Client{Transport: tr}
		clients.Add(1)
		spawn(func() {
			defer clients.Done()
			for k := 0; k < 200; k++ {
				resp, err := cl.Get(url)
				if err != nil {
					fail("rp-http: GET %s: %v", url, err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if n != 1024 {
					fail("rp-http: GET %s: %d bytes, expected 1024", url, n)
				}
			}
		})
	}
	clients.Wait()
	for _, tr := range transports {
		tr.CloseIdleConnections()
	}
	srv.Close()
	<-served
	for i := 0; i < 1000 && runtime.NumGoroutine() > base; i++ {
		time.Sleep(time.Millisecond)
	}
}
