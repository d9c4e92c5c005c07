package gateway

import (
	"github.com/hookflow/hookflow/internal/childenv"
	"github.com/hookflow/hookflow/internal/hostcheck"
	"strings"
)

// DefaultEnv returns the names of the variables of the gateway's
// environment that every stdio upstream gets, as the MCP SDKs' stdio
// clients for TypeScript and Python pass them: HOME, LOGNAME, PATH, SHELL,
// TERM and USER (on Windows, the variables that locate the user's profile,
// the system and the temporary directory, and PATH). The client tokens the
// gateway reads from its environment, and other upstreams' credentials,
// are not among them: an upstream reads only what [Environ] gives it.
func DefaultEnv() []string { return childenv.Default() }

// Environ returns the environment a stdio upstream starts with: the
// variables named by [DefaultEnv] and by inherit, with their values in the
// gateway's environment (one the gateway's environment does not set is
// left out, not passed empty), then env's KEY=value entries, which win
// over an inherited variable of the same name.
func Environ(inherit, env []string) []string { return childenv.Environ(inherit, env) }

// checkEnvName refuses a name that cannot be a variable's.
func checkEnvName(k string) bool {
	return k != "" && !strings.ContainsAny(k, "=\x00")
}

// CheckHost checks what u names on this machine, as starting it would
// find it, without starting it: its directory exists and its program is
// found there.
func (u Upstream) CheckHost() error {
	if u.Dir != "" {
		if err := hostcheck.Dir(u.Dir); err != nil {
			return err
		}
	}
	if len(u.Command) > 0 {
		return hostcheck.Program(u.Command[0], u.Dir)
	}
	return nil
}
