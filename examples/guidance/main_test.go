package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/demo.golden")

// TestDemo runs the demo and compares what it prints, step by step, with
// testdata/demo.golden: the instructions, the welcome prompt, the held
// notices, a call the gate blocks, the gate's transitions, end, storage,
// running, progress and cancel guidance, and a prompt's start guidance.
// go test -update rewrites the golden file.
func TestDemo(t *testing.T) {
	var out bytes.Buffer
	if err := runDemo(context.Background(), &out); err != nil {
		t.Fatalf("%v\noutput so far:\n%s", err, out.String())
	}
	golden := filepath.Join("testdata", "demo.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("the demo's output differs from %s (go test -update rewrites it):\n%s", golden, out.String())
	}
}
