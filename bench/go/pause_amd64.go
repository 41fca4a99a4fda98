package main

// pause is one PAUSE instruction (pause_amd64.s).
func pause()
