// Package childenv builds the environment of a process hookflow starts
// over stdio (a gateway's upstream, an interceptor host): the minimal set
// the MCP SDKs' stdio clients pass, never the starting process's whole
// environment, whose secrets (client tokens, other processes'
// credentials) the child has no business reading.
package childenv

import (
	"os"
	"runtime"
)

// Default returns the names of the variables every child gets, as the
// MCP SDKs' stdio clients for TypeScript and Python pass them: HOME,
// LOGNAME, PATH, SHELL, TERM and USER (on Windows, the variables that
// locate the user's profile, the system and the temporary directory, and
// PATH).
func Default() []string {
	if runtime.GOOS == "windows" {
		return []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
			"PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE"}
	}
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
}

// Environ returns a child's environment: the variables named by Default
// and by inherit, with their values in this process's environment (one it
// does not set is left out, not passed empty), then env's KEY=value
// entries, which win over an inherited variable of the same name.
func Environ(inherit, env []string) []string {
	names := append(Default(), inherit...)
	out := make([]string, 0, len(names)+len(env))
	for _, k := range names {
		if v, ok := os.LookupEnv(k); ok {
			out = append(out, k+"="+v)
		}
	}
	return append(out, env...)
}
