package upstream

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os/exec"
	"sync"
	"time"
)

// maxStderrLine bounds one logged line of an upstream's standard error:
// a longer line is logged in pieces of this size.
const maxStderrLine = 4096

// stderrReadSize is the buffer ReadFrom reads a process's standard error
// with. It lives as long as the process: os/exec's own copy would hold
// 32 KiB per upstream process for as long.
const stderrReadSize = 1024

// stderrWaitDelay is how long a process's end waits for its standard
// error to close: a grandchild that keeps it open does not keep the
// process's end waiting longer.
const stderrWaitDelay = time.Second

// stderrLog is the standard error of a stdio upstream's process: each line
// it writes becomes a log record of the gateway, with the process's ID,
// so that an operator sees why an upstream failed (a panic, a missing
// setting) where the gateway logs. Make one with [captureStderr]; it is
// safe for concurrent use.
type stderrLog struct {
	log *slog.Logger
	cmd *exec.Cmd

	mu  sync.Mutex
	buf []byte
}

// captureStderr makes cmd's standard error, once cmd starts, the log
// records of log (whose attributes name the upstream), and bounds how
// long cmd's end waits for it to close.
func captureStderr(log *slog.Logger, cmd *exec.Cmd) *stderrLog {
	w := &stderrLog{log: log, cmd: cmd}
	cmd.Stderr = w
	cmd.WaitDelay = stderrWaitDelay
	return w
}

// Write logs every complete line of p, keeping an incomplete last line
// for the next Write (or [stderrLog.Flush]); a line longer than
// [maxStderrLine] is logged in pieces.
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
	if n := len(w.buf) - len(w.buf)%maxStderrLine; n > 0 {
		w.emit(w.buf[:n])
		w.buf = w.buf[n:]
	}
	if len(w.buf) == 0 {
		w.buf = nil // let a large buffer go
	}
	return len(p), nil
}

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

// Flush logs what is left of an incomplete last line.
func (w *stderrLog) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(w.buf)
		w.buf = nil
	}
}

// Ended flushes w and logs that the process ended, with its exit status
// read from err, the error its session's Wait returned.
func (w *stderrLog) Ended(err error) {
	w.Flush()
	w.log.Info("gateway: upstream process ended", w.pid(), slog.Any("status", exitStatus(err)))
}

// emit logs line, in pieces of maxStderrLine: a long line written at
// once with its newline is bounded too.
func (w *stderrLog) emit(line []byte) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	for len(line) > 0 {
		n := min(len(line), maxStderrLine)
		w.log.Info("gateway: upstream stderr", w.pid(), slog.String("line", string(line[:n])))
		line = line[n:]
	}
}

// pid is the process's ID as a log attribute. The process is set before
// exec starts copying its output; a stderrLog written to otherwise says
// pid 0.
func (w *stderrLog) pid() slog.Attr {
	if w.cmd.Process == nil {
		return slog.Int("pid", 0)
	}
	return slog.Int("pid", w.cmd.Process.Pid)
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
