package intercept_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/framework/plugintest"
	"github.com/hookflow/hookflow/plugins/intercept"
)

// TestHostEnvironment: a stdio interceptor host gets the default
// variables, what its configuration names and nothing else of the
// invoker's environment, which holds a secret and a client token (as
// token_env reads it); neither reaches the host in its environment nor in
// any message it reads. The host runs behind a shell that writes its
// environment to a file, and the recording wrapper that logs every line
// it reads.
func TestHostEnvironment(t *testing.T) {
	const (
		secret      = "invoker-secret-4b1d"
		clientToken = "client-token-9c2e"
	)
	plugintest.SetChildEnv(t, secret, clientToken)
	for _, tc := range []struct {
		name       string
		env        []string
		inherit    []string
		want, lack []string
	}{
		{name: "nothing configured",
			want: []string{"HOME=" + plugintest.ChildHome, "PATH=" + os.Getenv("PATH")},
			lack: []string{plugintest.EnvInherited}},
		{name: "env and inherited variables",
			env:     []string{"CONFIGURED=yes", "HOME=/home/configured", "GORACE=atexit_sleep_ms=0"},
			inherit: []string{plugintest.EnvInherited, plugintest.EnvUnset},
			want:    []string{"CONFIGURED=yes", "HOME=/home/configured", "PATH=" + os.Getenv("PATH"), plugintest.EnvInherited + "=inherited"},
			lack:    []string{plugintest.EnvUnset}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			envFile, wire := filepath.Join(dir, "env"), filepath.Join(dir, "wire.log")
			server := intercept.Server{Name: "g",
				Command: []string{"/bin/sh", "-c", `env > "$0" && exec "$@"`, envFile, os.Args[0], teeArg, wire, testhost, "-serve", "allow"},
				Env:     tc.env, InheritEnv: tc.inherit}
			s := newSetup(t, intercept.Config{Servers: []intercept.Server{server}})
			s.echo("hello").WantText(plugintest.EchoText("hello"))
			if err := s.plugin.Close(); err != nil {
				t.Logf("closing the plugin: %v", err)
			}
			b, err := os.ReadFile(envFile)
			if err != nil {
				t.Fatal(err)
			}
			plugintest.WantEnv(t, "the host", strings.Split(strings.TrimSpace(string(b)), "\n"),
				tc.want, append([]string{plugintest.EnvSecret, plugintest.EnvToken}, tc.lack...))
			read, err := os.ReadFile(wire)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(read), "hello") {
				t.Errorf("the wrapper logged no invocation:\n%s", read)
			}
			for _, bad := range []string{secret, clientToken} {
				if strings.Contains(string(read), bad) {
					t.Errorf("the host read %q:\n%s", bad, read)
				}
			}
		})
	}
}
