// fib, as examples/fib.c: a goroutine and a WaitGroup per call.
package main

import (
	"sync"
	"time"
)

func fib(n int64, result *int64, wg *sync.WaitGroup) {
	if n < 2 {
		*result = n
	} else {
		var inner sync.WaitGroup
		var a, b int64
		inner.Add(2)
		go fib(n-1, &a, &inner)
		go fib(n-2, &b, &inner)
		inner.Wait()
		*result = a + b
	}
	wg.Done()
}

func fibMain() {
	n := args(30)
	var wg sync.WaitGroup
	var result int64
	t0 := time.Now()
	wg.Add(1)
	go fib(n, &result, &wg)
	wg.Wait()
	ns := time.Since(t0).Nanoseconds()
	a, b := int64(0), int64(1)
	for i := int64(0); i <= n; i++ {
		a, b = b, a+b
	}
	report("fib", n, 2*a-1, result, ns)
}
