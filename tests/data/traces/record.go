// Small Go programs recorded with runtime/trace for schedlab's import tests.
package main

import (
	"net"
	"os"
	"runtime/trace"
	"sync"
	"syscall"
	"time"
)

func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}

var sink int

func chans() {
	var wg sync.WaitGroup
	ch := make(chan int)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range ch {
				sink += work(v)
			}
		}()
	}
	for i := 0; i < 40; i++ {
		ch <- 20000
	}
	close(ch)
	wg.Wait()
}

func syncs() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	done := make(chan struct{})
	tick := time.NewTicker(300 * time.Microsecond)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for k := 0; k < 5; k++ {
				mu.Lock()
				sink += work(30000)
				mu.Unlock()
				select {
				case <-tick.C:
				case <-done:
				}
			}
			if i == 0 {
				ts := syscall.Timespec{Nsec: 15e6}
				syscall.Nanosleep(&ts, nil)
			}
		}(i)
	}
	time.Sleep(time.Millisecond)
	wg.Wait()
	tick.Stop()
	close(done)
}

func nets() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := ln.Accept()
		if err != nil {
			panic(err)
		}
		buf := make([]byte, 64)
		for {
			n, err := c.Read(buf)
			if err != nil {
				break
			}
			sink += work(10000)
			c.Write(buf[:n])
		}
		c.Close()
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		panic(err)
	}
	buf := make([]byte, 64)
	for i := 0; i < 5; i++ {
		c.Write([]byte("ping"))
		c.Read(buf)
		time.Sleep(200 * time.Microsecond)
	}
	c.Close()
	wg.Wait()
	ln.Close()
}

func main() {
	f, _ := os.Create(os.Args[2])
	trace.Start(f)
	switch os.Args[1] {
	case "chan":
		chans()
	case "sync":
		syncs()
	case "net":
		nets()
	}
	trace.Stop()
	f.Close()
}
