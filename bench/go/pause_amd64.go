package main

import "syscall"

// pause is one PAUSE instruction (pause_amd64.s).
func pause()

// rawGettid and rawThreadCPU are system calls without a preemption point
// (pause_amd64.s); compute reads them between two clock reads.
func rawGettid() int

//go:noescape
func rawThreadCPU(ts *syscall.Timespec)
