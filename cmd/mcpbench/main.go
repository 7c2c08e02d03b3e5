// Command mcpbench measures mcpcheck's throughput and peak memory on
// generated captures, the default run (every rule) first, beside two
// plain decoders of the same file: a streaming encoding/json decode of
// every envelope and message (the "floor") and the same with
// encoding/json/v2. Every measurement runs in a
// child process with GOMAXPROCS=2, its peak RSS taken from a small shim
// process (so the harness's own memory cannot count), and the runs of one
// size are interleaved so machine noise spreads evenly.
//
//	go run ./cmd/mcpbench                       # 10k and 100k calls
//	go run ./cmd/mcpbench -calls 10k,100k,1m     # and 1M calls (1.6 GB)
//	go run ./cmd/mcpbench -rules                 # and each content rule's cost
//	go run ./cmd/mcpbench gen 100k FILE          # write the 100k-call capture
//
// The v2 floor needs GOEXPERIMENT=jsonv2 (Go 1.26 has encoding/json/v2
// only behind it); mcpbench builds that floor with the experiment itself.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "floor": // mcpbench floor v1|v2 FILE
			if len(os.Args) != 4 {
				fail("usage: mcpbench floor v1|v2 FILE")
			}
			if err := runFloor(os.Args[2], os.Args[3], os.Stdout); err != nil {
				fail(err.Error())
			}
			return
		case "gen": // mcpbench gen CALLS FILE: the capture a size measures
			if len(os.Args) != 4 {
				fail("usage: mcpbench gen CALLS FILE")
			}
			n, err := parseCount(os.Args[2])
			if err == nil {
				_, err = generate(os.Args[3], n, 20_000)
			}
			if err != nil {
				fail(err.Error())
			}
			return
		case "peak": // mcpbench peak PROG ARGS...
			if err := runPeak(os.Args[2:], os.Stdout); err != nil {
				fail(err.Error())
			}
			return
		}
	}
	if err := runBench(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "mcpbench:", msg)
	os.Exit(2)
}
