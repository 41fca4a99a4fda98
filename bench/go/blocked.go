// Goroutines blocked at once and what they cost, as examples/blocked.c.
package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

func residentBytes() int64 {
	var size, pages int64
	f, err := os.Open("/proc/self/statm")
	if err != nil {
		return 0
	}
	defer f.Close()
	if _, err := fmt.Fscan(f, &size, &pages); err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

func blockedMain() {
	count := args(1000000)
	gate := make(chan struct{})
	var started, done sync.WaitGroup
	before := residentBytes()
	t0 := time.Now()
	started.Add(int(count))
	done.Add(int(count))
	for i := int64(0); i < count; i++ {
		go func() {
			started.Done()
			<-gate
			done.Done()
		}()
	}
	started.Wait()
	all := residentBytes()
	close(gate)
	done.Wait()
	ns := time.Since(t0).Nanoseconds()
	fmt.Printf("blocked n=%d result=%d ns=%d ns_per_op=%.1f bytes_per_g=%.0f\n", count, count, ns,
		float64(ns)/float64(count), float64(all-before)/float64(count))
}
