// spawn/join, as examples/spawn.c.
package main

import (
	"sync"
	"time"
)

func spawnMain() {
	count := args(1000000)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := int64(0); i < count; i++ {
		wg.Add(1)
		go func() { wg.Done() }()
	}
	wg.Wait()
	report("spawn", count, count, count, time.Since(t0).Nanoseconds())
}
