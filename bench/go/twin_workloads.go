// The twins themselves: each is its workload's definition written in Go,
// op for op (the JSON in workloads/catalog/, the C of workloads/builtin.c),
// with compute, sleep, syscall and touch done as schedlab's native platform
// does them (twin.go).  Every goroutine the workload starts is counted
// (spawn, or live.Add before a go statement, and gexit at its end).
package main

import (
	"math/rand"
	"runtime"
	"sync"
)

const (
	us = int64(1000)
	ms = 1000 * us
)

func init() {
	twins = []twin{
		{"cpu-hogs", "96 hogs of 20-50 ms and 1000 short goroutines arriving every 500 us", cpuHogs},
		{"deep-stacks", "1024 pairs trading a token 100 times, 2 us per hop", deepStacks},
		{"fib", "fork-join fib(25), a goroutine and a channel per call", twFib},
		{"numa-shards", "64 workers, 4 MiB shards, 300 x (256 KiB read, 2 us, sleep 20 us)", numaShards},
		{"pingpong-hog", "a 1 ms pair and a 1 us pair trading tokens for 100 ms", pingpongHog},
		{"pingpong", "two goroutines, 100,000 hops, ~1 us per hop", twPingpong},
		{"pipeline", "20,000 items through 4 stages over channels of capacity 16", pipeline},
		{"rpc-server", "Poisson connections, 1-7 requests each, lognormal 40 us, 256 MiB table", rpcServer},
		{"shared-hot", "64 workers, 4000 x (2 us, 4 KiB of a 256 MiB table at random)", sharedHot},
		{"skynet", "a million leaves, ten children per node", twSkynet},
		{"spawn-burst", "100,000 goroutines of ~2 us started at once", spawnBurst},
		{"syscall-heavy", "256 workers, 100 x (100 us, a 50-500 us system call)", syscallHeavy},
		{"vtocc", "800 closed-loop clients of a proxy with a cache mutex and a pool of 32", vtocc},
		{"ping-pong", "two goroutines trade a token 10,000 times, 1 us per hop", pingPongBuiltin},
		{"spawn-tree", "10,000 goroutines spawned as a tree, 10 us each", spawnTree},
		{"spawn-wide", "1,001,001 goroutines from 1,000 spawners, 1 us each", spawnWide},
		{"yield-storm", "1,000 goroutines, each 100 x (5 us, yield)", yieldStorm},
	}
}

// The workloads' shared regions ("regions"), made before the run starts and
// never written by it: as natively, their pages are first touched by the
// reads (Go's heap and schedlab's hwloc_alloc both hand out fresh,
// untouched anonymous memory for an allocation this large).
var table []byte

func prepare(name string) {
	if name == "rpc-server" || name == "shared-hot" {
		table = make([]byte, 256<<20)
	}
}

func cpuHogs(seed uint64) {
	r := newRand(seed)
	var done sync.WaitGroup
	done.Add(1096)
	for i := 0; i < 96; i++ {
		c := child(r)
		spawn(func() {
			compute(uniform(c, 20*ms, 50*ms))
			done.Done()
		})
	}
	for k := 0; k < 100; k++ {
		sleepFor(500 * us)
		for i := 0; i < 10; i++ {
			c := child(r)
			spawn(func() {
				compute(exponential(c, float64(50*us)))
				done.Done()
			})
		}
	}
	done.Wait()
}

// writeFrame64 writes a 64 KiB frame on the running goroutine's stack, as
// the workload's "stacks" says each goroutine does each time it runs (and
// as schedlab's native runtime does, plat_g_write_frame): a declared array
// stays on the stack (Go grows the stack to hold it on the first call),
// and its zeroing plus one store a line write all of it.
//
//go:noinline
func writeFrame64(k int) byte {
	var frame [64 << 10]byte
	for i := 0; i < len(frame); i += 64 {
		frame[i] = byte(i >> 6)
	}
	return frame[k&(len(frame)-1)]
}

// frame64Sinks keeps each pair's frames read, a slot each: a shared sink
// would be one line bouncing between cores at every write.
var frame64Sinks [1024][64]byte

// deep-stacks natively: the pairs with the goroutines' real stacks, each
// writing its 64 KiB frame when it starts and after each receive, where it
// may have parked.
func deepStacks(seed uint64) {
	r := newRand(seed)
	var done sync.WaitGroup
	done.Add(1024)
	for i := 0; i < 1024; i++ {
		c := child(r)
		i := i
		spawn(func() {
			var sink byte
			a, b := make(chan int64), make(chan int64)
			e := child(c)
			spawn(func() {
				var sink byte
				sink += writeFrame64(0)
				for k := 0; k < 100; k++ {
					v := <-a
					sink += writeFrame64(k)
					compute(exponential(e, float64(2*us)))
					b <- v
				}
				frame64Sinks[i][32] = sink
			})
			sink += writeFrame64(0)
			for k := 0; k < 100; k++ {
				compute(exponential(c, float64(2*us)))
				a <- 1
				<-b
				sink += writeFrame64(k)
			}
			frame64Sinks[i][0] = sink
			done.Done()
		})
	}
	done.Wait()
}

func twFibG(n int64, out chan int64) {
	compute(200)
	if n < 2 {
		out <- n
		gexit()
		return
	}
	c := make(chan int64, 2)
	live.Add(2)
	go twFibG(n-1, c)
	go twFibG(n-2, c)
	a := <-c
	b := <-c
	out <- a + b
	gexit()
}

func twFib(seed uint64) {
	result := make(chan int64)
	live.Add(1)
	go twFibG(25, result)
	if v := <-result; v != 75025 {
		fail("fib: assertion failed: fib(25) = 75025, got %d", v)
	}
}

func numaShards(seed uint64) {
	fanOut(newRand(seed), 64, func(c *rand.Rand) {
		shard := make([]byte, 4<<20)
		touch(shard, 0, 4<<20, sequential, true, 0)
		for k := 0; k < 300; k++ {
			touch(shard, uniform(c, 0, 3932160), 256<<10, sequential, false, 0)
			compute(exponential(c, float64(2*us)))
			sleepFor(exponential(c, float64(20*us)))
		}
	})
}

func pingpongHog(seed uint64) {
	done, hog, light := make(chan int64), make(chan int64), make(chan int64)
	pair := func(tok chan int64, work int64) func() {
		return func() {
			for k := 0; k < 1000000000; k++ {
				select {
				case <-done:
					return
				case <-tok:
				}
				compute(work)
				tok <- 0
			}
		}
	}
	spawn(pair(hog, ms))
	spawn(pair(hog, ms))
	spawn(pair(light, us))
	spawn(pair(light, us))
	hog <- 0
	light <- 0
	sleepFor(100 * ms)
	close(done)
	<-hog
	<-light
}

func twPingpong(seed uint64) {
	r := newRand(seed)
	ping, pong := make(chan int64), make(chan int64)
	c := child(r)
	spawn(func() {
		for k := 0; k < 50000; k++ {
			v := <-ping
			compute(uniform(c, 500, 1500))
			pong <- v + 1
		}
	})
	var v int64
	for k := 0; k < 50000; k++ {
		compute(uniform(r, 500, 1500))
		ping <- v + 1
		v = <-pong
	}
	if v != 100000 {
		fail("pingpong: assertion failed: the token made 100,000 hops, got %d", v)
	}
}

func pipeline(seed uint64) {
	r := newRand(seed)
	out := make(chan int64, 16)
	{
		o := out
		spawn(func() {
			for i := int64(0); i < 20000; i++ {
				compute(500)
				o <- i + 1
			}
			close(o)
		})
	}
	for k := 0; k < 4; k++ {
		in := out
		out = make(chan int64, 16)
		o, c := out, child(r)
		spawn(func() {
			for {
				v := <-in
				if v == 0 {
					break
				}
				compute(exponential(c, float64(2*us)))
				o <- v + 1
			}
			close(o)
		})
	}
	var n, sum int64
	for {
		v := <-out
		if v == 0 {
			break
		}
		compute(500)
		n++
		sum += v
	}
	if n != 20000 || sum != 200090000 {
		fail("pipeline: assertion failed: %d items (want 20000), sum %d (want 200090000)", n, sum)
	}
}

func rpcServer(seed uint64) {
	r := newRand(seed)
	l := &listener{count: 12800, r: child(r)}
	l.gap = func() int64 { return exponential(l.r, 1e9/256000.0) }
	l.requests = func() int64 { return uniform(l.r, 1, 7) }
	l.think = func(r *rand.Rand) int64 { return exponential(r, float64(100*us)) }
	for c := l.accept(); c != nil; c = l.accept() {
		c := c
		spawn(func() {
			var reqs requests
			buf := make([]byte, 64<<10)
			for c.read() {
				arrival := c.arrival
				touch(buf, 0, 4<<10, sequential, false, 0)
				compute(lognormal(c.r, float64(40*us), 0.6))
				touch(table, uniform(c.r, 0, 256<<20), 4<<10, random, false, c.r.Uint64())
				touch(buf, 0, 8<<10, sequential, true, 0)
				c.write()
				reqs.record(arrival)
			}
			reqs.flush()
		})
	}
}

func sharedHot(seed uint64) {
	fanOut(newRand(seed), 64, func(c *rand.Rand) {
		for k := 0; k < 4000; k++ {
			compute(exponential(c, float64(2*us)))
			touch(table, uniform(c, 0, 268431360), 4<<10, random, false, c.Uint64())
		}
	})
}

func twSkynetG(out chan int64, num, size int64) {
	if size == 1 {
		out <- num
		gexit()
		return
	}
	c := make(chan int64)
	live.Add(10)
	for i := int64(0); i < 10; i++ {
		go twSkynetG(c, num+i*(size/10), size/10)
	}
	var sum int64
	for i := 0; i < 10; i++ {
		sum += <-c
	}
	out <- sum
	gexit()
}

func twSkynet(seed uint64) {
	results := make(chan int64)
	live.Add(1)
	go twSkynetG(results, 0, 1000000)
	if sum := <-results; sum != 499999500000 {
		fail("skynet: assertion failed: skynet sum, got %d", sum)
	}
}

func spawnBurst(seed uint64) {
	fanOut(newRand(seed), 100000, func(c *rand.Rand) {
		compute(exponential(c, float64(2*us)))
	})
}

func syscallHeavy(seed uint64) {
	fanOut(newRand(seed), 256, func(c *rand.Rand) {
		for k := 0; k < 100; k++ {
			compute(exponential(c, float64(100*us)))
			syscallFor(uniform(c, 50*us, 500*us))
		}
	})
}

func vtocc(seed uint64) {
	r := newRand(seed)
	pool, stats, total := make(chan int64, 32), make(chan int64, 64), make(chan int64)
	var cache sync.Mutex
	var handlers sync.WaitGroup
	for k := 0; k < 32; k++ {
		pool <- 1
	}
	spawn(func() {
		var n int64
		for {
			v := <-stats
			if v == 0 {
				break
			}
			compute(200)
			n += v
		}
		total <- n
	})
	handlers.Add(800)
	l := &listener{closed: true, count: 800, r: child(r)}
	l.requests = func() int64 { return 50 }
	l.think = func(r *rand.Rand) int64 { return exponential(r, float64(500*us)) }
	for c := l.accept(); c != nil; c = l.accept() {
		c := c
		spawn(func() {
			var reqs requests
			var served int64
			for c.read() {
				arrival := c.arrival
				compute(exponential(c.r, float64(5*us)))
				cache.Lock()
				compute(300)
				cache.Unlock()
				if uniform(c.r, 0, 99) < 70 {
					compute(exponential(c.r, float64(2*us)))
				} else {
					db := <-pool
					syscallFor(lognormal(c.r, float64(30*us), 0.5))
					pool <- db
				}
				compute(exponential(c.r, float64(3*us)))
				c.write()
				reqs.record(arrival)
				served++
			}
			reqs.flush()
			stats <- served
			handlers.Done()
		})
	}
	handlers.Wait()
	close(stats)
	if n := <-total; n != 40000 {
		fail("vtocc: assertion failed: all 40,000 requests were answered, got %d", n)
	}
}

// ---- The built-ins of workloads/builtin.c ----

func pingPongBuiltin(seed uint64) {
	ping, pong := make(chan int64), make(chan int64)
	spawn(func() {
		for k := 0; k < 10000; k++ {
			ping <- 0
			<-pong
			compute(1000)
		}
	})
	spawn(func() {
		for k := 0; k < 10000; k++ {
			<-ping
			compute(1000)
			pong <- 0
		}
	})
}

func spawnTreeLevel(level int) {
	if level < 4 {
		n := 10
		if level == 0 {
			n = 9
		}
		live.Add(n)
		for i := 0; i < n; i++ {
			go spawnTreeLevel(level + 1)
		}
	}
	compute(10 * us)
	if level > 0 {
		gexit()
	}
}

func spawnTree(seed uint64) { spawnTreeLevel(0) }

func spawnWideLeaf() {
	compute(1000)
	gexit()
}

func spawnWideSpawner() {
	live.Add(1000)
	for i := 0; i < 1000; i++ {
		go spawnWideLeaf()
	}
	gexit()
}

func spawnWide(seed uint64) {
	live.Add(1000)
	for i := 0; i < 1000; i++ {
		go spawnWideSpawner()
	}
}

func yieldStorm(seed uint64) {
	live.Add(1000)
	for i := 0; i < 1000; i++ {
		go func() {
			for k := 0; k < 100; k++ {
				compute(5 * us)
				runtime.Gosched()
			}
			gexit()
		}()
	}
}

// fanOut starts n goroutines, each given its own random stream drawn from
// r in the order they start, as the catalog's "spawn N" loops do, and
// waits for them all.
func fanOut(r *rand.Rand, n int, body func(c *rand.Rand)) {
	var done sync.WaitGroup
	done.Add(n)
	for i := 0; i < n; i++ {
		c := child(r)
		spawn(func() {
			body(c)
			done.Done()
		})
	}
	done.Wait()
}
