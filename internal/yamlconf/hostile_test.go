package yamlconf_test

import (
	"strings"
	"testing"

	"github.com/hookflow/hookflow/internal/yamlconf"
)

// bomb is a configuration whose value is decoded as anything.
type bomb struct {
	Extra map[string]any `yaml:"extra"`
	Lists [][]string     `yaml:"lists"`
}

// TestDocumentHostile sends hostile files: an alias bomb (into values of
// any kind and into typed lists), a file over the size bound and one
// nested past the parser's depth. Each is refused with a clear error.
func TestDocumentHostile(t *testing.T) {
	var laughs strings.Builder
	laughs.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		prev := "*a" + string(rune('0'+i-1))
		laughs.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	anchors := laughs.String()
	for _, tc := range []struct{ name, yaml, want string }{
		{"alias bomb into any", "extra:\n  " + strings.ReplaceAll(anchors, "\n", "\n  ") + "\n", "aliases expand it to over 100000 values"},
		{"alias bomb into lists", "extra: {x: &b [" + strings.Repeat("a, ", 20000) + "a]}\nlists: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n", "aliases expand it to over 100000 values"},
		{"too big", "extra: {x: '" + strings.Repeat("y", yamlconf.MaxFileBytes) + "'}\n", "over 1024 KiB"},
		{"too deep", "extra: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n", "exceeded max depth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &yamlconf.Decoder{File: "f.yaml"}
			var b bomb
			err := d.Document([]byte(tc.yaml), "the file", &b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %.300v, want %q", err, tc.want)
			}
		})
	}
}
