package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// hookgen imports no plugin: each plugin's generator code is an extension
// (internal/ext/<name>) that reads the plugin's vocabulary from a leaf
// package outside plugins/ (internal/guidancekinds, internal/declaredkinds,
// internal/interceptplan), and names the plugin's packages only as import
// paths of the code it generates. The dependencies are go list's,
// transitive, of the non-test files.
func TestHookgenImportsNoPlugin(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	cmd := exec.Command(goCmd, "list", "-deps", ".")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/hookflow/hookflow/plugins/") {
			t.Errorf("cmd/hookgen depends on %s", dep)
		}
	}
}
