//go:build !amd64

package main

// pause: no spin hint off amd64 (the spin still reads the clock each turn).
func pause() {}
