// ping-pong, as examples/pingpong.c.
package main

import "time"

func pingpongMain() {
	rounds := args(1000000)
	ping, pong := make(chan uint64), make(chan uint64)
	go func() {
		for i := int64(0); i < rounds; i++ {
			pong <- (<-ping) + 1
		}
	}()
	t0 := time.Now()
	var v uint64
	for i := int64(0); i < rounds; i++ {
		ping <- v
		v = <-pong
	}
	report("pingpong", rounds, rounds, int64(v), time.Since(t0).Nanoseconds())
}
