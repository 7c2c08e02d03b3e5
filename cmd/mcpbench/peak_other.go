//go:build !linux

package main

import (
	"errors"
	"io"
)

func runPeak([]string, io.Writer) error {
	return errors.New("peak RSS is measured only on Linux")
}
