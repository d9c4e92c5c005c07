package gateway

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os/exec"
	"sync"
)

// maxStderrLine bounds one logged line of an upstream's standard error:
// a longer line is logged in pieces of this size.
const maxStderrLine = 4096

// stderrLog is the standard error of a stdio upstream's process: each
// line it writes becomes a log record of the gateway, with the upstream's
// name and the process's ID, so that an operator sees why an upstream
// failed (a panic, a missing setting) where the gateway logs.
type stderrLog struct {
	log *slog.Logger
	cmd *exec.Cmd

	mu  sync.Mutex
	buf []byte
}

// Write logs every complete line of p, keeping an incomplete last line
// for the next Write (or flush).
func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	for len(w.buf) >= maxStderrLine {
		w.emit(w.buf[:maxStderrLine])
		w.buf = w.buf[maxStderrLine:]
	}
	if len(w.buf) == 0 {
		w.buf = nil // let a large buffer go
	}
	return len(p), nil
}

// stderrReadSize is the buffer ReadFrom reads a process's standard error
// with. It lives as long as the process: os/exec's own copy would hold
// 32 KiB per upstream process for as long.
const stderrReadSize = 1024

// ReadFrom copies r, the process's standard error, into w until r ends;
// os/exec's copy calls it (through io.Copy), so that a process that
// writes little holds a small buffer.
func (w *stderrLog) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, stderrReadSize)
	var total int64
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
			total += int64(n)
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// flush logs what is left of an incomplete last line.
func (w *stderrLog) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(w.buf)
		w.buf = nil
	}
}

func (w *stderrLog) emit(line []byte) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) == 0 {
		return
	}
	// The process is set before exec starts copying its output.
	w.log.Info("gateway: upstream stderr", slog.Int("pid", w.cmd.Process.Pid), slog.String("line", string(line)))
}

// exitStatus describes how a stdio upstream's session ended, from the
// error its Wait returned: the process's exit status when the SDK
// reports it.
func exitStatus(err error) string {
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.String()
	case err == nil:
		return "ended"
	}
	return err.Error()
}
