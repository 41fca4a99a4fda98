package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/trace"
	"strings"
	"testing"
)

// A recording is a trace Go's own reader accepts, holding the program's
// goroutines from creation to end, and the figures count every goroutine
// the program started (rp-pingpong: its body and the two players).
func TestRecordWritesATraceGoReads(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("the tracer is on already (go test -trace): a second one cannot start")
	}
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	runtime.GOMAXPROCS(1)
	path := filepath.Join(t.TempDir(), "pp.trace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, window, _ := runRecorded(findRecordable("rp-pingpong"), 1, 1, f, false)
	f.Close()
	if rep.Completed != 3 || rep.MakespanNs <= 0 || window < rep.MakespanNs {
		t.Fatalf("completed %d (want 3), makespan %d ns, trace window %d ns", rep.Completed, rep.MakespanNs, window)
	}
	head := make([]byte, 16)
	if b, _ := os.ReadFile(path); len(b) < 16 || !bytes.HasPrefix(b, []byte("go 1.")) {
		t.Fatalf("%s does not start with a Go trace header", path)
	} else {
		copy(head, b)
	}
	// The go command that wrote the trace reads it (scripts/check-go-twins
	// names it): Go 1.22 and later print the parsed events, whose state
	// transitions say what Go 1.19's event names did.
	goCmd := os.Getenv("SCHEDLAB_GO")
	if goCmd == "" {
		goCmd = "go"
	}
	modern := !bytes.HasPrefix(head, []byte("go 1.1")) && !bytes.HasPrefix(head, []byte("go 1.20")) &&
		!bytes.HasPrefix(head, []byte("go 1.21"))
	args := []string{"tool", "trace", "-d", path}
	if modern {
		args = []string{"tool", "trace", "-d=parsed", path}
	}
	out, err := exec.Command(goCmd, args...).Output()
	if err != nil {
		t.Fatalf("%s %s (header %q): %v", goCmd, strings.Join(args, " "), head, err)
	}
	// 10,000 round trips: each player blocks on a channel about once a hop
	var ends, blocks int
	for _, l := range strings.Split(string(out), "\n") {
		if modern {
			if strings.Contains(l, " Running->NotExist") {
				ends++
			}
			if strings.Contains(l, " Running->Waiting") &&
				(strings.Contains(l, `Reason="chan receive"`) || strings.Contains(l, `Reason="chan send"`)) {
				blocks++
			}
			continue
		}
		if strings.Contains(l, " GoEnd ") {
			ends++
		}
		if strings.Contains(l, " GoBlockRecv ") || strings.Contains(l, " GoBlockSend ") {
			blocks++
		}
	}
	if ends < 3 || blocks < 10000 {
		t.Fatalf("the trace has %d GoEnd (want >= 3) and %d channel blocks (want >= 10000)", ends, blocks)
	}
}

// Every program of replay_programs.go runs to its end at 2 Ps (the HTTP one
// over loopback), each goroutine it counted exiting (the body and those it
// started with spawn; the spawn tree's nodes and net/http's are not counted).
func TestReplayProgramsFinish(t *testing.T) {
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	counted := map[string]int64{"rp-spawntree": 1, "rp-pingpong": 3, "rp-fanout": 11,
		"rp-mutex": 9, "rp-timers": 51, "rp-syscall": 17, "rp-http": 9}
	for i := range replayPrograms {
		p := &replayPrograms[i]
		rep := runTwin(p, 2, 1)
		if rep.Completed != counted[p.name] || rep.MakespanNs <= 0 {
			t.Errorf("%s: completed %d goroutines (want %d) in %d ns", p.name, rep.Completed,
				counted[p.name], rep.MakespanNs)
		}
	}
}

// A flight-recorder snapshot (Go 1.25+) is a trace Go's reader accepts that
// ends where the run did: the players' ends are in it, and so is a recent
// part of their hops, but it need not start at the program's start.
func TestFlightSnapshotEndsWithTheRun(t *testing.T) {
	if !flightAvailable {
		t.Skip("built with a Go before 1.25: no flight recorder")
	}
	if trace.IsEnabled() {
		t.Skip("the tracer is on already (go test -trace)")
	}
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	runtime.GOMAXPROCS(1)
	path := filepath.Join(t.TempDir(), "fl.trace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, _, _ := runRecorded(findRecordable("rp-pingpong"), 1, 1, f, true)
	f.Close()
	if rep.Completed != 3 {
		t.Fatalf("completed %d, want 3", rep.Completed)
	}
	goCmd := os.Getenv("SCHEDLAB_GO")
	if goCmd == "" {
		goCmd = "go"
	}
	out, err := exec.Command(goCmd, "tool", "trace", "-d=parsed", path).Output()
	if err != nil {
		t.Fatalf("%s tool trace -d=parsed %s: %v", goCmd, path, err)
	}
	var ends, blocks int
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, " Running->NotExist") {
			ends++
		}
		if strings.Contains(l, `Reason="chan receive"`) {
			blocks++
		}
	}
	if ends < 2 || blocks < 100 {
		t.Fatalf("the snapshot has %d goroutine ends (want >= 2: the players) and %d channel waits (want >= 100)", ends, blocks)
	}
}
