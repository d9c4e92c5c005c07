package guidance_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"golang.org/x/tools/txtar"

	"github.com/hookflow/hookflow/plugins/guidance"
)

var update = flag.Bool("update", false, "rewrite the want/ files of testdata/*.txtar")

// goldenEnv is the JSON form of a case's env.json.
type goldenEnv struct {
	Storage  []string           `json:"storage"`
	Features []guidance.Feature `json:"features"`
	Settings map[string]any     `json:"settings"`
}

// TestGolden composes the hooks of every testdata/*.txtar case, as MCP
// Toolkit's workflow does: register them (hooks.json) in a registry of
// app "app" (from the archive's comment, default the registry's), query
// (query.json, default everything), load from the archive's other files
// and compose in env.json with composer.json's options. The composed text
// must equal want/content.md and the transparency record
// want/record.txt; a registration error goes to want/errors.txt instead.
// go test -update rewrites the want/ files.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.txtar")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			goldenCase(t, file)
		})
	}
}

func goldenCase(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	inputs := fstest.MapFS{}
	wants := map[string][]byte{}
	for _, f := range ar.Files {
		if rest, ok := strings.CutPrefix(f.Name, "want/"); ok {
			wants[rest] = f.Data
		} else {
			inputs[f.Name] = &fstest.MapFile{Data: f.Data}
		}
	}
	app := ""
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if v, ok := strings.CutPrefix(line, "app:"); ok {
			app = strings.TrimSpace(v)
		}
	}
	decode := func(name string, v any) {
		f, ok := inputs[name]
		if !ok {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(f.Data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var hooks []guidance.Hook
	var q guidance.Query
	var env goldenEnv
	var composer guidance.Composer
	decode("hooks.json", &hooks)
	decode("query.json", &q)
	decode("env.json", &env)
	decode("composer.json", &composer)
	for i := range hooks {
		if hooks[i].Content == "" {
			hooks[i].FS = inputs
		}
	}

	got := map[string][]byte{}
	reg, err := guidance.NewRegistry(app)
	if err == nil {
		err = reg.Register(hooks...)
	}
	if err != nil {
		got["errors.txt"] = []byte(err.Error() + "\n")
	} else {
		e := guidance.Env{Storage: env.Storage, Settings: env.Settings}
		for _, f := range env.Features {
			e.Features = e.Features.With(f)
		}
		var loader guidance.Loader
		res := composer.Compose(e, reg.Query(q), &loader)
		got["content.md"] = []byte(res.Content + "\n")
		got["record.txt"] = []byte(record(res))
	}

	if *update {
		var kept []txtar.File
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "want/") {
				kept = append(kept, f)
			}
		}
		for _, name := range []string{"content.md", "record.txt", "errors.txt"} {
			if data, ok := got[name]; ok {
				kept = append(kept, txtar.File{Name: "want/" + name, Data: data})
			}
		}
		ar.Files = kept
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for name, want := range wants {
		if g, ok := got[name]; !ok {
			t.Errorf("want/%s: the case produced none", name)
		} else if !bytes.Equal(g, want) {
			t.Errorf("want/%s differs (go test -update rewrites it):\n--- got:\n%s\n--- want:\n%s", name, g, want)
		}
	}
	for name, g := range got {
		if _, ok := wants[name]; !ok {
			t.Errorf("unexpected output %s (go test -update adds it):\n%s", name, g)
		}
	}
}

// record renders a transparency record, one hook per line.
func record(c *guidance.Composed) string {
	var b strings.Builder
	section := func(name string, s []guidance.Summary) {
		fmt.Fprintf(&b, "%s: %d\n", name, len(s))
		for _, x := range s {
			fmt.Fprintf(&b, "  %s [%s %d] %q", x.ID, x.Level, x.Priority, x.Name)
			if x.Reason != "" {
				fmt.Fprintf(&b, ": %s", x.Reason)
			}
			b.WriteByte('\n')
		}
	}
	section("included", c.Included)
	section("skipped", c.Skipped)
	section("failed", c.Failed)
	fmt.Fprintf(&b, "notices: %d\n", len(c.Notices))
	for _, n := range c.Notices {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	return b.String()
}
