//go:build !amd64

package main

import (
	"syscall"
	"unsafe"
)

// pause: no spin hint off amd64 (the spin still reads the clock each turn).
func pause() {}

// Off amd64 these go through the syscall package, whose calls are
// preemption points: a preemption inside compute's check of a pause then
// counts as the OS's time.
func rawGettid() int { return syscall.Gettid() }

func rawThreadCPU(ts *syscall.Timespec) {
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(ts)), 0)
}
