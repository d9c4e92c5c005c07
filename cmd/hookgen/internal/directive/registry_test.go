package directive_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/cmd/hookgen/internal/directive"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext/declare"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext/guidance"
	"github.com/hookflow/hookflow/cmd/hookgen/internal/ext/interceptor"
)

var update = flag.Bool("update", false, "rewrite testdata/list.golden and the directives block of docs/hookgen.md")

// TestList compares hookgen -list's text with testdata/list.golden; run with
// -update to rewrite it after changing the registry.
func TestList(t *testing.T) {
	got := registry().List()
	golden := filepath.Join("testdata", "list.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("List() differs from %s (run go test -update):\n%s", golden, got)
	}
	if again := registry().List(); again != got {
		t.Error("List() is not stable across registries")
	}
}

// The markers of the directives block of docs/hookgen.md.
const (
	synopsisBegin = "<!-- directives: generated from the directive registry by `go test ./cmd/hookgen/internal/directive -update`; do not edit -->\n```\n"
	synopsisEnd   = "```\n<!-- end of directives -->"
)

// TestSynopsisInDocs keeps the grammar block of docs/hookgen.md equal to the
// registry's usage lines, so the directives' grammar is written once (in
// the registry) and the doc and -list both show it; -update rewrites it.
func TestSynopsisInDocs(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "docs", "hookgen.md")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	begin := strings.Index(doc, synopsisBegin)
	n := strings.Index(doc[max(begin, 0):], synopsisEnd)
	if begin < 0 || n < 0 {
		t.Fatalf("docs/hookgen.md has no directives block (%q … %q)", synopsisBegin, synopsisEnd)
	}
	end := begin + n
	want := registry().Synopsis()
	if got := doc[begin+len(synopsisBegin) : end]; got == want {
		return
	}
	if !*update {
		t.Fatalf("the directives block of docs/hookgen.md differs from the registry (run go test -update):\n%s", want)
	}
	if err := os.WriteFile(path, []byte(doc[:begin+len(synopsisBegin)]+want+doc[end:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestListCoversRegistry checks that -list shows every directive and key,
// so the registry stays the single source of the help.
func TestListCoversRegistry(t *testing.T) {
	r := registry()
	list := r.List()
	for _, d := range r.Defs() {
		if !strings.Contains(list, d.Usage()+"\n") {
			t.Errorf("List() lacks %q", d.Usage())
		}
		if d.Help == "" {
			t.Errorf("%s has no help", d.Head())
		}
		for _, k := range d.Keys {
			if k.Help == "" {
				t.Errorf("%s key %s has no help", d.Head(), k.Name)
			}
		}
	}
}

func TestDefs(t *testing.T) {
	r := registry()
	defs := r.Defs()
	var heads []string
	for _, d := range defs {
		heads = append(heads, d.Head())
	}
	want := "//mcp:tool //mcp:resource //mcp:resource-template //mcp:prompt //mcp:arg //mcp:plugin //mcp:guidance //mcp:declare //hook:<stage> //hook:validator //hook:mutator"
	if got := strings.Join(heads, " "); got != want {
		t.Errorf("heads = %s, want %s", got, want)
	}

	// Defs returns copies: changing them does not change the registry.
	defs[0].Keys[0].Required = false
	defs[0].Name = "changed"
	if _, diags := r.ParseComment(`//mcp:tool`, pos); len(diags) != 1 {
		t.Errorf("registry changed through Defs: %q", render(diags))
	}

	tool := r.Defs()[0]
	if k := tool.Key("scopes"); k == nil || k.Kind != directive.KindList || k.Required {
		t.Errorf(`Key("scopes") = %+v`, k)
	}
	if k := tool.Key("nope"); k != nil {
		t.Errorf(`Key("nope") = %+v, want nil`, k)
	}
	if !tool.Allows(directive.TargetType) || tool.Allows(directive.TargetMethod) || tool.Allows(0) {
		t.Errorf("tool targets = %v", tool.Targets)
	}
	var hook directive.Def
	for _, d := range r.Defs() {
		if d.Head() == "//hook:<stage>" {
			hook = d
		}
	}
	if !hook.Stage || !hook.Allows(directive.TargetMethod) || !hook.Allows(directive.TargetFunc) || hook.Allows(directive.TargetType) {
		t.Errorf("hook def = %+v", hook)
	}
	if got := hook.Usage(); got != "//hook:<stage> [flow=<flow>] [priority=<priority>] [name=<word>] [timeout=<duration>] [onfail=<word>]" {
		t.Errorf("hook Usage() = %q", got)
	}
}

func TestKindAndTargetStrings(t *testing.T) {
	kinds := map[directive.Kind]string{
		directive.KindString: "string", directive.KindInt: "int", directive.KindFlag: "flag",
		directive.KindWord: "word", directive.KindList: "list", directive.KindFlow: "flow", 0: "Kind(0)",
	}
	for k, want := range kinds {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
	targets := map[directive.Target]string{
		directive.TargetType: "type", directive.TargetMethod | directive.TargetFunc: "method or function", 0: "nothing",
		directive.TargetType | directive.TargetPackage: "type or package clause",
	}
	for tg, want := range targets {
		if got := tg.String(); got != want {
			t.Errorf("Target(%d).String() = %q, want %q", tg, got, want)
		}
	}
}

// registry returns the registry hookgen uses: the core directives and
// those of its extensions, as main.go lists them (TestCLIList compares
// hookgen -list with testdata/list.golden).
func registry() *directive.Registry {
	r, err := ext.Registry([]ext.Extension{guidance.New(), declare.New(), interceptor.New()})
	if err != nil {
		panic(err)
	}
	return r
}
