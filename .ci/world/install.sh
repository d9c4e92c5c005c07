#!/usr/bin/env bash
# Install what the world legs run (cmd/hookflow's TestGatewayWorld and
# examples/everything's TestClientsWorld): Node 22 and, pinned, MCP
# servers nobody here wrote (the reference servers everything, filesystem
# and memory), the TypeScript SDK whose client drives them through the
# gateway and drives examples/everything directly, and the MCP Inspector,
# whose CLI mode lists and calls tools on examples/everything. They go
# under .ci/.tools/world (git-ignored); a second run installs nothing.
#
# Usage: .ci/world/install.sh
#
# On success it prints, on stdout, the environment the test reads (and
# nothing else), so that a caller can eval it:
#   export HOOKFLOW_NODE=<node 22 binary>
#   export HOOKFLOW_WORLD=<directory holding node_modules/@modelcontextprotocol/…>
# .ci/run evals it and adds HOOKFLOW_REQUIRE_WORLD=1, which makes the
# test fail instead of skipping without them.
#
# Environment (optional):
#   CONFORMANCE_TOOLS_DIR   install directory, default .ci/.tools (shared with conformance.sh)
set -euo pipefail

# The versions the issue that asked for this leg was tried with.
PACKAGES=(
	@modelcontextprotocol/server-everything@2026.8.31
	@modelcontextprotocol/server-filesystem@2026.8.31
	@modelcontextprotocol/server-memory@2026.8.31
	@modelcontextprotocol/sdk@1.32.2
	@modelcontextprotocol/inspector@2.12.0
)

log() { printf 'world: %s\n' "$*" >&2; }
die() { printf 'world: ERROR: %s\n' "$*" >&2; exit 1; }

SCRIPT_DIR=$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOOLS_DIR=${CONFORMANCE_TOOLS_DIR:-$SCRIPT_DIR/../.tools}
mkdir -p "$TOOLS_DIR"
TOOLS_DIR=$(cd "$TOOLS_DIR" && pwd)

# shellcheck source=../node.sh
. "$SCRIPT_DIR/../node.sh"
WORLD_DIR=$TOOLS_DIR/world
STAMP=$WORLD_DIR/.installed

STAGING=""
cleanup() { if [[ -n "$STAGING" ]]; then rm -rf -- "$STAGING"; fi; }
trap cleanup EXIT

install_node

want="${PACKAGES[*]}"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
	log "$want already installed in $WORLD_DIR"
else
	command -v npm >/dev/null 2>&1 || die "npm not found; it is needed once to fetch $want"
	log "installing $want into $WORLD_DIR"
	STAGING=$(mktemp -d "$TOOLS_DIR/.world.staging.XXXXXX")
	# Not npm_install: these packages install together, with their
	# dependencies resolved once, and none needs an install script.
	PATH="$(dirname -- "$NODE"):$PATH" npm install --prefix "$STAGING" --no-save --no-package-lock --no-audit --no-fund \
		--ignore-scripts --loglevel=error "${PACKAGES[@]}" >&2 || die "npm install failed"
	printf '%s' "$want" >"$STAGING/.installed"
	rm -rf -- "$WORLD_DIR"
	mv -- "$STAGING" "$WORLD_DIR"
	STAGING=""
	for p in server-everything server-filesystem server-memory sdk inspector; do
		[[ -f "$WORLD_DIR/node_modules/@modelcontextprotocol/$p/package.json" ]] || die "@modelcontextprotocol/$p did not install in $WORLD_DIR"
	done
	log "installed $want"
fi

printf 'export HOOKFLOW_NODE=%q\n' "$NODE"
printf 'export HOOKFLOW_WORLD=%q\n' "$WORLD_DIR"
