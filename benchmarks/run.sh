#!/usr/bin/env bash
# Compares hookflow with go-sdk and mcp-go over streamable HTTP: builds the
# benchmarks command (outside the tree) and runs it with the given flags
# (see `go run . run -h`; defaults: 5 interleaved rounds, 5,000 calls per
# cell, concurrency 1, 16 and 64, stateful and stateless). The Markdown
# report goes to stdout, progress to stderr:
#
#   benchmarks/run.sh > results.md
#   benchmarks/run.sh -rounds 3 -calls 2000 -conc 16 -modes stateful
set -euo pipefail
cd "$(dirname "$0")"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/benchmarks" .
"$dir/benchmarks" run "$@"
