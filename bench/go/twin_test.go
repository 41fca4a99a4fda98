package main

import (
	"runtime"
	"sync"
	"testing"
)

// Two goroutines computing 40 ms each on one P: Go preempts each in turn,
// and the time the other ran must not count as the first one's work, so
// the pair takes at least 80 ms whatever the host's load (time the OS
// takes the thread away counts as work, as natively, which only shortens
// nothing here: the two never spin at once).
func TestComputeNotCreditedWithOtherGoroutines(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	var wg sync.WaitGroup
	t0 := nanotime()
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			compute(40 * ms)
			wg.Done()
		}()
	}
	wg.Wait()
	if d := nanotime() - t0; d < 80*ms {
		t.Fatalf("two computes of 40 ms on one P took %.1f ms: a preempted compute counted the other's time", float64(d)/1e6)
	}
}

func TestTouchVisitsEveryLineOnce(t *testing.T) {
	region := make([]byte, 64*100)
	for _, pattern := range []int{sequential, random} {
		for i := range region {
			region[i] = 1
		}
		touch(region, 64*10, 64*37, pattern, true, 12345)
		for line := 0; line < 100; line++ {
			want := byte(1)
			if line >= 10 && line < 47 {
				want = 0
			}
			if region[line*64] != want {
				t.Fatalf("pattern %d: line %d is %d, want %d", pattern, line, region[line*64], want)
			}
		}
	}
}

func TestQuantileAsSchedlab(t *testing.T) {
	// exact below 128, then 64 buckets per power of two: 1000 is in
	// [992, 1007]; a bucket's top is capped at the largest value
	if got := bucketTop(1000); got != 1007 {
		t.Fatalf("bucketTop(1000) = %d, want 1007", got)
	}
	if got := quantile([]int64{5, 1000, 1000, 1001}, 0.5); got != 1001 {
		t.Fatalf("p50 = %d, want 1001 (1000's bucket, capped at the max)", got)
	}
	if got := quantile([]int64{1, 2, 3, 4}, 0.99); got != 4 {
		t.Fatalf("p99 = %d, want 4", got)
	}
}

func TestDistributions(t *testing.T) {
	r := newRand(7)
	n, sum, hits := 20000, 0.0, 0
	for i := 0; i < n; i++ {
		sum += float64(exponential(r, 2000))
		u := uniform(r, 0, 99)
		if u < 0 || u > 99 {
			t.Fatalf("uniform(0, 99) gave %d", u)
		}
		if u < 70 {
			hits++
		}
	}
	if m := sum / float64(n); m < 1900 || m > 2100 {
		t.Fatalf("exponential mean 2000: sample mean %.0f", m)
	}
	if f := float64(hits) / float64(n); f < 0.68 || f > 0.72 {
		t.Fatalf("uniform(0, 99) < 70: fraction %.3f, want 0.70", f)
	}
}
