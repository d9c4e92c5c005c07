package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookflow/hookflow/plugins/command/trust"
)

// Sandbox is what the hooks of one plugin share: the interpreters a
// command may name without a path and the shell of the hooks that opt in
// to one, resolved once, and how runs are reaped.
type Sandbox struct {
	// interps maps each allowed interpreter name to its absolute path
	// ("" when it is not installed).
	interps map[string]string
	// shell is the absolute path of the shell, "" when none is found;
	// pwsh is PowerShell's.
	shell, pwsh string
	// reap finds what runs leave outside their groups; nil until Reap.
	reap *reaper
}

// New returns a sandbox whose commands may name the interpreters (program
// names, each looked up on PATH once; one that is not installed is
// reported when a line names it) and run, when they opt in, through bash
// (as Claude Code runs hooks), else sh, or through PowerShell (pwsh). An interpreter that others than
// its owner may write is refused. Its runs are not reaped beyond their
// process group until [Sandbox.Reap].
func New(interpreters []string) (*Sandbox, error) {
	if err := Check(interpreters, nil); err != nil {
		return nil, err
	}
	interps := make(map[string]string, len(interpreters))
	for _, n := range interpreters {
		interps[n] = ""
		p, err := exec.LookPath(n)
		if err != nil {
			continue
		}
		if p, err = filepath.Abs(p); err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if _, err := os.Stat(real); err != nil {
			continue
		}
		if _, err := trust.CheckFile(real, true); err != nil {
			return nil, fmt.Errorf("Interpreters: %s: %v", n, err)
		}
		interps[n] = p
	}
	sb := &Sandbox{interps: interps, shell: resolveShell()}
	if p, err := exec.LookPath("pwsh"); err == nil {
		sb.pwsh, _ = filepath.Abs(p)
	}
	return sb, nil
}

// Reap makes sb kill, when a run ends, the processes that left its
// group (setsid): by a cgroup v2 of the run's own when cgroups is true
// and the server may make one under its cgroup, else by a marker in
// their environment. It returns why not a cgroup ("" when one is used),
// for the log. Call it once, before the first Run.
func (sb *Sandbox) Reap(cgroups bool) (whyNot string) {
	if !cgroups {
		sb.reap = &reaper{mode: reapMarker}
		return "cgroups were not asked for"
	}
	sb.reap, whyNot = newReaper()
	return whyNot
}

// Check reports, as [*Error] values of [CodeName] joined, the names of
// interpreters that are not program names (a name without a path, a
// shell metacharacter or white space) and of runners hookflow does not
// know ("*" allows every runner).
func Check(interpreters, runners []string) error {
	var errs []error
	for i, n := range interpreters {
		if !isProgramName(n) {
			errs = append(errs, &Error{Code: CodeName, Field: fmt.Sprintf("interpreters[%d]", i),
				Msg: fmt.Sprintf("%q is not a program name: write a name the server's PATH finds, without a path", n)})
		}
	}
	for i, n := range runners {
		if _, ok := runnerArgs[n]; !ok && n != "*" {
			errs = append(errs, &Error{Code: CodeName, Field: fmt.Sprintf("runners[%d]", i),
				Msg: fmt.Sprintf("%q is not a runner hookflow knows (%s)", n, strings.Join(runnerNames(), ", "))})
		}
	}
	return errors.Join(errs...)
}

// isProgramName reports whether n may name an interpreter: a program
// name without a path, a shell metacharacter or white space.
func isProgramName(n string) bool {
	return n != "" && !strings.ContainsAny(n, "/"+metachars+" \t$")
}

// runnerNames returns the runners' names, sorted.
func runnerNames() []string {
	names := make([]string, 0, len(runnerArgs))
	for n := range runnerArgs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
