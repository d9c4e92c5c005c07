package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hookflow/hookflow/plugins/command/trust"
)

// Process is one hook's process: what [Sandbox.Parse] resolved of its
// command line, and the bounds the caller sets on its runs.
type Process struct {
	// Form is how the line runs, and so what its trust vouches for.
	Form trust.Form
	// Path is the absolute path of what runs: the interpreter, the
	// shell, the program, or the script when it runs directly.
	Path string
	// Argv is the process's argv, argv[0] as written.
	Argv []string
	// Line is the command line as the trust store records it: the line
	// as written, or an exec form's argv quoted.
	Line string
	// Assigns are the NAME=value assignments the line starts with,
	// expanded; the caller puts them in Env.
	Assigns []string
	// Script is the absolute path (symlinks resolved) of the file whose
	// content the trust store vouches for: the script, or the program;
	// "" for a shell line.
	Script string
	// Interpreter is the absolute path of the interpreter or shell, ""
	// when the file runs directly.
	Interpreter string
	// Missing are programs a shell line starts that the server does not
	// have; First is the first program it starts, as written.
	Missing []string
	First   string

	// Env is the process's whole environment, NAME=value.
	Env []string
	// Dir is its working directory: Parse sets the project directory.
	Dir string
	// Timeout bounds a run; Grace is how long the process has to exit
	// after SIGTERM before its group is killed.
	Timeout, Grace time.Duration
	// MaxOutput caps stdout and stderr, each, in bytes.
	MaxOutput int
}

// stopReason says why a process was stopped before it exited on its own.
type stopReason uint8

const (
	stopNone     stopReason = iota
	stopTimeout             // the hook's timeout passed
	stopCanceled            // the request was cancelled
	stopShutdown            // the plugin was closed
	stopOverflow            // stdout or stderr went over the cap
)

// Result is what became of one run.
type Result struct {
	// ExitCode is the process's exit code, -1 when a signal ended it
	// (0 when it never started).
	ExitCode int
	// Signal ended the process, when ExitCode is -1.
	Signal syscall.Signal
	// Stdout and Stderr are what it wrote, each up to the cap.
	Stdout, Stderr []byte
	// Took is how long the run took, start to reap.
	Took time.Duration
}

// exited is what became of one run, before it is told as a Result and
// an error.
type exited struct {
	startErr error
	code     int
	signal   syscall.Signal
	stopped  stopReason
	overflow string
	stdout   []byte
	stderr   []byte
	took     time.Duration
}

// Run starts p for one call, with stdin as its standard input, never
// through a shell, and waits for it. The process leads its own process
// group; whatever ends the run (its exit, the timeout, ctx's
// cancellation, stop being closed, an output over the cap), every
// process left in the group, and every one that left it, is killed
// before Run returns, and the leader is reaped: a hook leaves nothing
// running and no zombie behind. When the sandbox stops it, the group
// gets SIGTERM, then SIGKILL after the grace. The error is an [*Error]
// when the process did not start or was stopped; the Result is set
// either way.
func (sb *Sandbox) Run(ctx context.Context, stop <-chan struct{}, p Process, stdin []byte) (Result, error) {
	s := spawn{Process: p, stdin: stdin, reap: sb.reap}
	e := s.run(ctx, stop)
	res := Result{ExitCode: e.code, Signal: e.signal, Stdout: e.stdout, Stderr: e.stderr, Took: e.took}
	switch {
	case e.startErr != nil:
		return res, &Error{Code: CodeStart, Msg: "could not start: " + e.startErr.Error()}
	case e.stopped == stopTimeout:
		return res, &Error{Code: CodeTimeout, Msg: fmt.Sprintf("ran past its timeout of %v and was killed", p.Timeout)}
	case e.stopped == stopCanceled:
		return res, &Error{Code: CodeCanceled, Msg: "the request was cancelled; the hook was killed"}
	case e.stopped == stopShutdown:
		return res, &Error{Code: CodeShutdown, Msg: "the server is shutting down; the hook was killed"}
	case e.stopped == stopOverflow:
		return res, &Error{Code: CodeOverflow, Stream: e.overflow, Msg: fmt.Sprintf("wrote more than %d bytes on %s and was killed", p.MaxOutput, e.overflow)}
	}
	return res, nil
}

// spawn is one run of a Process.
type spawn struct {
	Process
	stdin []byte
	// reap finds the processes that left the group; nil when the
	// sandbox was not told to reap.
	reap *reaper
}

// run starts s and waits for it, never through a shell. The process leads
// its own process group; whatever ends the hook (its exit, the timeout,
// ctx's cancellation, shutdown being closed, an output over the cap), every
// process left in the group is killed before run returns, and the leader
// is reaped: a hook leaves nothing running and no zombie behind. When
// hookflow stops it, the group gets SIGTERM, then SIGKILL after the grace.
func (s *spawn) run(ctx context.Context, shutdown <-chan struct{}) exited {
	t0 := time.Now()
	var p pipes
	if err := p.open(); err != nil {
		return exited{startErr: err}
	}
	var group *runGroup
	if s.reap != nil {
		group = s.reap.group()
		defer func() { group.close() }()
	}
	cmd, err := s.start(&p, &group)
	// The child has its copies; the parent keeps only its ends.
	closeAll(p.inR, p.outW, p.errW)
	if err != nil {
		closeAll(p.inW, p.outR, p.errR)
		return exited{startErr: err}
	}
	res := s.wait(ctx, shutdown, cmd, &p, group)
	res.took = time.Since(t0)
	return res
}

// pipes are a run's stdin, stdout and stderr: the child's ends (inR,
// outW, errW) and the parent's.
type pipes struct{ inR, inW, outR, outW, errR, errW *os.File }

// open makes the three pipes, or none.
func (p *pipes) open() error {
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return err
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		closeAll(p.inR, p.inW)
		return err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		closeAll(p.inR, p.inW, p.outR, p.outW)
		return err
	}
	return nil
}

// start starts the process in its own group and, when *group is set, in
// the run's cgroup or with its marker; a cgroup the kernel refuses makes
// the run go by its marker (*group replaced).
func (s *spawn) start(p *pipes, group **runGroup) (*exec.Cmd, error) {
	newCmd := func(g *runGroup) *exec.Cmd {
		cmd := &exec.Cmd{
			Path: s.Path, Args: s.Argv, Env: s.Env, Dir: s.Dir,
			Stdin: p.inR, Stdout: p.outW, Stderr: p.errW,
			// Setpgid: the hook and its children form a group of their
			// own, killed as one. Pdeathsig: the leader dies with the
			// server.
			SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
		}
		if g != nil {
			// What leaves the group is found by the run's cgroup or
			// marker.
			cmd.Env = g.setup(cmd.SysProcAttr, cmd.Env)
		}
		return cmd
	}
	cmd := newCmd(*group)
	err := cmd.Start()
	if err != nil && *group != nil && (*group).mode == reapCgroup {
		// The kernel refused the cgroup: this run goes by its marker.
		(*group).close()
		*group = (&reaper{mode: reapMarker}).group()
		cmd = newCmd(*group)
		err = cmd.Start()
	}
	if *group != nil {
		(*group).started()
	}
	return cmd, err
}

// wait feeds the started process its stdin, reads its output and waits
// for it to exit or to be stopped; then it kills what is left of its
// group (and what left it), reaps it and drains the pipes.
func (s *spawn) wait(ctx context.Context, shutdown <-chan struct{}, cmd *exec.Cmd, p *pipes, group *runGroup) exited {
	var res exited
	pid := cmd.Process.Pid
	overflow := make(chan string, 2)
	outDone := make(chan []byte, 1)
	errDone := make(chan []byte, 1)
	go readCapped(p.outR, s.MaxOutput, "stdout", overflow, outDone)
	go readCapped(p.errR, s.MaxOutput, "stderr", overflow, errDone)
	go func() {
		// A hook that does not read its stdin gets EPIPE here, which is
		// not its failure; closing inW below ends a write it blocks.
		_, _ = p.inW.Write(s.stdin)
		_ = p.inW.Close()
	}()
	exitCh := waitExit(pid)
	res.stopped, res.overflow = s.watch(ctx, shutdown, exitCh, overflow)
	if res.stopped != stopNone {
		terminate(pid, s.Grace, exitCh)
	}
	// Whatever the leader left in its group goes with it, and so does
	// what left the group (setsid).
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			res.startErr = err
		}
	}
	if group != nil {
		group.sweep()
	}
	res.code = -1
	if ps := cmd.ProcessState; ps != nil {
		res.code = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.signal = ws.Signal()
		}
	}
	// The group and what left it are dead, so the pipes' writers are
	// gone; a process that escaped the sweep could still hold them: the
	// drain is bounded.
	deadline := time.Now().Add(s.Grace)
	_ = p.outR.SetReadDeadline(deadline)
	_ = p.errR.SetReadDeadline(deadline)
	res.stdout, res.stderr = <-outDone, <-errDone
	closeAll(p.inW, p.outR, p.errR)
	if res.stopped == stopNone {
		select {
		case res.overflow = <-overflow:
			res.stopped = stopOverflow
		default:
		}
	}
	return res
}

// waitExit reports the leader's exit without reaping it: until it is
// reaped its PID, which is the group's ID, cannot be reused, so the
// group can be killed safely afterwards.
func waitExit(pid int) <-chan struct{} {
	exitCh := make(chan struct{})
	go func() {
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if err != unix.EINTR {
				break
			}
		}
		close(exitCh)
	}()
	return exitCh
}

// watch waits for the leader's exit, or for what stops it first: the
// timeout, ctx, shutdown or an output over the cap (and which).
func (s *spawn) watch(ctx context.Context, shutdown, exitCh <-chan struct{}, overflow <-chan string) (stopReason, string) {
	timer := time.NewTimer(s.Timeout)
	defer timer.Stop()
	select {
	case <-exitCh:
		return stopNone, ""
	case <-timer.C:
		return stopTimeout, ""
	case <-ctx.Done():
		return stopCanceled, ""
	case <-shutdown:
		return stopShutdown, ""
	case name := <-overflow:
		return stopOverflow, name
	}
}

// terminate sends SIGTERM to the group of pid, waits up to grace for the
// leader to exit, then sends SIGKILL and waits for it.
func terminate(pid int, grace time.Duration, exitCh <-chan struct{}) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exitCh:
		return
	case <-t.C:
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-exitCh
}

// readCapped reads r to its end, keeping at most max bytes. The first byte
// past max is reported on overflow (once), and reading stops: the writer
// then gets EPIPE or is killed.
func readCapped(r *os.File, max int, name string, overflow chan<- string, done chan<- []byte) {
	buf := make([]byte, 0, min(max+1, 4096))
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			if len(buf)+n > max {
				buf = append(buf, chunk[:max-len(buf)]...)
				overflow <- name
				_ = r.Close()
				done <- buf
				return
			}
			buf = append(buf, chunk[:n]...)
		}
		if err != nil {
			if err != io.EOF {
				_ = r.Close()
			}
			done <- buf
			return
		}
	}
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
