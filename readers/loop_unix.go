//go:build unix

package readers

import (
	"errors"
	"syscall"
)

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
