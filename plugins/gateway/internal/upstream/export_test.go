package upstream

import (
	"log/slog"
	"os/exec"
)

// The names by which the tests of package upstream_test reach what only
// the package itself needs.
type (
	Idle[K comparable] = idleTrack[K]
	Backlog            = backlog
	Stderr             = stderrLog
)

// The bounds the tests check.
const (
	MaxBacklog    = maxBacklog
	DrainTimeout  = drainTimeout
	MaxStderrLine = maxStderrLine
)

// CaptureStderr is captureStderr.
func CaptureStderr(log *slog.Logger, cmd *exec.Cmd) *Stderr { return captureStderr(log, cmd) }
