package main

func probeMain() {}
