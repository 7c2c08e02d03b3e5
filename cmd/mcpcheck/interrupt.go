package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpcheck/mcpcheck/internal/atomicfile"
)

// exitOnInterrupt makes SIGINT and SIGTERM (Ctrl-C, a cancelled CI job)
// remove the temporary files of reports and baselines not yet in place
// before the process exits, with the shell's code for the signal. (The
// temporary files of a run's own data are unlinked as soon as they are
// made: nothing of them is left however the process ends.)
func exitOnInterrupt() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-ch
		atomicfile.RemoveTemporaries()
		code := 130 // 128 + SIGINT
		if sig == syscall.SIGTERM {
			code = 143
		}
		os.Exit(code)
	}()
}
