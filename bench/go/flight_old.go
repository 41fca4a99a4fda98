//go:build !go1.25

package main

import (
	"errors"
	"io"
)

// The flight recorder needs Go 1.25 (runtime/trace.FlightRecorder); a
// go-bench built with an older Go refuses the mode instead of writing a
// whole trace in its place.
const flightAvailable = false

type flightRecorder struct{}

func newFlight() *flightRecorder { return &flightRecorder{} }

func (f *flightRecorder) start() error {
	return errors.New("the flight recorder needs Go 1.25 or later (runtime/trace.FlightRecorder)")
}

func (f *flightRecorder) snapshot(w io.Writer) error { return f.start() }
