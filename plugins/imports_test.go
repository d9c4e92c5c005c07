package plugins_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// pluginsPath is the import path of the plugins directory; a plugin is a
// top-level package under it, with its subpackages (auth/oauth,
// intercept/wire).
const pluginsPath = "github.com/hookflow/hookflow/plugins/"

// knownCrossings are the dependencies of one plugin on another that remain,
// each with the reason it is still there. Empty it as they go: an entry
// that no longer matches a real dependency fails the test as well, so the
// table cannot outlive what it excuses.
var knownCrossings = []struct{ from, to, why string }{}

// No plugin depends on another plugin: what plugins share (decisions,
// refusals, redaction, limits, session state, failure policy) lives in
// flows. A plugin's own subpackages are its own; test files do not count.
// The dependencies are go list's, transitive, of the non-test files.
func TestPluginsImportNoOtherPlugin(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	cmd := exec.Command(goCmd, "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	type crossing struct{ from, to string }
	found := map[crossing][]string{} // the packages that cross, by plugin pair
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	packages := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		from, ok := plugin(fields[0])
		if !ok {
			continue
		}
		packages++
		for _, dep := range fields[1:] {
			if to, ok := plugin(dep); ok && to != from {
				c := crossing{from, to}
				found[c] = append(found[c], fields[0]+" -> "+dep)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if packages < 10 {
		t.Fatalf("go list found %d plugin packages: is the test running in plugins/?", packages)
	}
	for _, k := range knownCrossings {
		c := crossing{k.from, k.to}
		if _, ok := found[c]; !ok {
			t.Errorf("knownCrossings lists %s -> %s, which is gone: remove the entry", k.from, k.to)
		}
		delete(found, c)
	}
	var bad []string
	for _, paths := range found {
		bad = append(bad, paths...)
	}
	slices.Sort(bad)
	for _, b := range bad {
		t.Errorf("a plugin depends on another plugin: %s", b)
	}
}

// plugin returns the plugin that the package path belongs to.
func plugin(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, pluginsPath)
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(rest, "/")
	return name, true
}
