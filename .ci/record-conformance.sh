#!/usr/bin/env bash
# Record the MCP conformance suite's traffic against examples/everything as
# a difftest corpus, examples/everything/testdata/conformance.jsonl, which
# TestConformanceDiffer replays on hookflow's transport and on the SDK's
# handler. Each leg of .ci/conformance.sh (stateful, stateless) becomes one
# case; the marks of deliberate differences ("differs") are kept from the
# previous recording by name (see docs/conformance.md).
#
# Usage: CONFORMANCE_TOOLS_DIR=... .ci/record-conformance.sh
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/everything" ./examples/everything
go build -o "$dir/record" ./internal/difftest/record
out=examples/everything/testdata/conformance.jsonl
printf '#!/bin/sh\nexec "%s/record" -server "%s/everything" -out "%s/recorded.jsonl" "$@"\n' "$dir" "$dir" "$dir" >"$dir/server"
chmod +x "$dir/server"
# The traffic is recorded whether or not every check passes.
.ci/conformance.sh "$dir/server" || echo "record: the suite failed (above); recording what it sent anyway"

# Keep the header and each case's marks from the previous recording.
python3 - "$out" "$dir/recorded.jsonl" <<'PY'
import json, sys
out, rec = sys.argv[1], sys.argv[2]
head, marks = [], {}
try:
    for line in open(out):
        if line.startswith('#') or not line.strip():
            head.append(line)
        else:
            c = json.loads(line)
            marks[c['name']] = c.get('differs')
except FileNotFoundError:
    pass
with open(out, 'w') as f:
    f.writelines(head)
    for line in open(rec):
        # The line is kept byte for byte (bodies hold numbers as sent).
        line = line.rstrip('\n')
        m = marks.get(json.loads(line)['name'])
        if m:
            line = line[:-1] + ',"differs":' + json.dumps(m) + '}'
        f.write(line + '\n')
PY
echo "recorded $(grep -vc '^#' "$out") cases in $out"
