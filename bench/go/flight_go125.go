//go:build go1.25

package main

import (
	"io"
	"runtime/trace"
	"time"
)

// flightAvailable: runtime/trace's flight recorder came with Go 1.25.
const flightAvailable = true

// flightRecorder keeps the last part of the run in memory, as a service
// would, and writes it when asked: what a user gets from a snapshot taken
// when something went wrong, not the whole run.  MinAge asks for at least
// the run's last flightWindow; the recorder keeps whole generations, so
// the snapshot can reach further back.
type flightRecorder struct{ fr *trace.FlightRecorder }

const flightWindow = 50 * time.Millisecond

func newFlight() *flightRecorder {
	return &flightRecorder{trace.NewFlightRecorder(trace.FlightRecorderConfig{
		MinAge: flightWindow, MaxBytes: 64 << 20})}
}

func (f *flightRecorder) start() error { return f.fr.Start() }

func (f *flightRecorder) snapshot(w io.Writer) error {
	_, err := f.fr.WriteTo(w)
	f.fr.Stop()
	return err
}
