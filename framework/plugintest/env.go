package plugintest

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The variables [SetChildEnv] sets, for a test of a plugin that starts
// processes (an upstream, an interceptor host) to check what of its own
// environment reaches them.
const (
	// EnvSecret holds a secret of the process itself: no child may see it.
	EnvSecret = "HOOKFLOW_TEST_SECRET"
	// EnvToken holds the clients' token, as a token_env setting reads it:
	// no child may see it.
	EnvToken = "HOOKFLOW_TEST_GATEWAY_TOKEN"
	// EnvInherited is set to "inherited", for a configuration to pass on by
	// name.
	EnvInherited = "HOOKFLOW_TEST_INHERITED"
	// EnvUnset is not set at all, for a configuration to name in vain.
	EnvUnset = "HOOKFLOW_TEST_UNSET"
	// ChildHome is the HOME that SetChildEnv sets: a child gets HOME by
	// default.
	ChildHome = "/home/hookflow-test"
)

// SetChildEnv sets, for the rest of the test, [EnvSecret] to secret,
// [EnvToken] to token, [EnvInherited] and HOME to [ChildHome], and unsets
// [EnvUnset]; each gets its value back when the test ends. Like
// t.Setenv, it cannot be used in a parallel test.
func SetChildEnv(t testing.TB, secret, token string) {
	t.Helper()
	t.Setenv(EnvSecret, secret)
	t.Setenv(EnvToken, token)
	t.Setenv(EnvInherited, "inherited")
	t.Setenv("HOME", ChildHome)
	t.Setenv(EnvUnset, "")
	if err := os.Unsetenv(EnvUnset); err != nil {
		t.Fatalf("plugintest: %v", err)
	}
}

// WantEnv reports an error for each KEY=value of want that env (a child's
// environment, as KEY=value lines) lacks, and for each variable of lack
// that it sets, whatever its value. who names the child in the messages.
func WantEnv(t testing.TB, who string, env, want, lack []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(env, w) {
			t.Errorf("%s's environment lacks %s:\n%s", who, w, strings.Join(env, "\n"))
		}
	}
	for _, k := range lack {
		if slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, k+"=") }) {
			t.Errorf("%s's environment has %s:\n%s", who, k, strings.Join(env, "\n"))
		}
	}
}
