package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/gateway/host"
)

// TestGatewayPathsRelativeToFile reads a configuration file in another
// directory than the working directory: its command's relative program
// is found next to the file (the command runs in the file's directory, so
// its relative arguments are relative to the file too), and the audit
// file's short form is a path next to the file.
func TestGatewayPathsRelativeToFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "up"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "g.yaml")
	yaml := "upstreams:\n  - {name: a, command: [./bin/up, data]}\nplugins:\n  audit: {file: audit.jsonl}\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := host.ReadConfig(file, host.LoadOptions{Plugins: gatewayPlugins()})
	if err != nil {
		t.Fatalf("ReadConfig from %s: %v", dir, err)
	}
	if got := cfg.Upstreams[0].Dir; got != dir {
		t.Errorf("the command's directory: %q, want the file's, %q", got, dir)
	}
	if got := section(cfg.Plugins, "audit").(audit.Config).File.Path; got != filepath.Join(dir, "audit.jsonl") {
		t.Errorf("audit file: %q, want it next to the configuration file", got)
	}
}
