// Present so that the package may declare body-less functions pulled from
// the runtime with go:linkname (nanotime, in twin.go).
