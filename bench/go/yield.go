// yield, as examples/yield.c.
package main

import (
	"runtime"
	"sync"
	"time"
)

func yieldMain() {
	yields := args(1000000)
	var wg sync.WaitGroup
	wg.Add(2)
	t0 := time.Now()
	for k := 0; k < 2; k++ {
		go func() {
			for i := int64(0); i < yields; i++ {
				runtime.Gosched()
			}
			wg.Done()
		}()
	}
	wg.Wait()
	report("yield", yields, 2*yields, 2*yields, time.Since(t0).Nanoseconds())
}
