// skynet, as examples/skynet.c.
package main

import (
	"fmt"
	"os"
	"time"
)

func skynet(c chan int64, num, size int64) {
	if size == 1 {
		c <- num
		return
	}
	rc := make(chan int64)
	step := size / 10
	for i := int64(0); i < 10; i++ {
		go skynet(rc, num+i*step, step)
	}
	var sum int64
	for i := 0; i < 10; i++ {
		sum += <-rc
	}
	c <- sum
}

func skynetMain() {
	leaves := args(1000000)
	t0 := time.Now()
	c := make(chan int64)
	go skynet(c, 0, leaves)
	sum := <-c
	ns := time.Since(t0).Nanoseconds()
	report("skynet", leaves, (10*leaves-1)/9, sum, ns)
	if sum != leaves*(leaves-1)/2 {
		fmt.Fprintf(os.Stderr, "skynet: wrong sum %d\n", sum)
		os.Exit(1)
	}
}
