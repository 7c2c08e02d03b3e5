// Command mcpcheck gates CI on captured MCP sessions.
package main

import "os"

func main() {
	exitOnInterrupt()
	limitMemory()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
