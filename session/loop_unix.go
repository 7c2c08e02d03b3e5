//go:build unix

package session

import (
	"errors"
	"syscall"
)

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
