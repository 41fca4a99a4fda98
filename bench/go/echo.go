// echo, as examples/echo.c in its self-test form: a server on an ephemeral
// loopback port and 10 client goroutines making N requests in all.
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

func serve(c net.Conn) {
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if _, werr := c.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	c.Close()
}

func echoMain() {
	requests := args(10000)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "echo:", err)
		os.Exit(1)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	const clients = 10
	var wg sync.WaitGroup
	var answered int64
	t0 := time.Now()
	for i := int64(0); i < clients; i++ {
		n := requests / clients
		if i < requests%clients {
			n++
		}
		wg.Add(1)
		go func(n int64) {
			defer wg.Done()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				fmt.Fprintln(os.Stderr, "echo:", err)
				os.Exit(1)
			}
			resp := make([]byte, 64)
			for j := int64(0); j < n; j++ {
				req := []byte(fmt.Sprintf("request %d", j))
				if _, err := c.Write(req); err != nil {
					break
				}
				if _, err := io.ReadFull(c, resp[:len(req)]); err != nil ||
					string(resp[:len(req)]) != string(req) {
					fmt.Fprintf(os.Stderr, "echo: wrong answer to '%s'\n", req)
					os.Exit(1)
				}
				atomic.AddInt64(&answered, 1)
			}
			c.Close()
		}(n)
	}
	wg.Wait()
	ns := time.Since(t0).Nanoseconds()
	ln.Close()
	report("echo", requests, requests, answered, ns)
}
