#!/usr/bin/env bash
# Install axe-core, the accessibility engine the console's browser test
# (browsertest/) injects into each page, pinned, under .ci/.tools/
# (git-ignored), with the Node 22 of .ci/node.sh. Idempotent: a second
# run installs nothing.
#
# Usage: .ci/axe-core.sh
#
# On success it prints, on stdout, the environment the test reads (and
# nothing else), so that a caller can eval it:
#   export HOOKFLOW_AXE=<path of axe.min.js>
#
# Environment (optional):
#   CONFORMANCE_TOOLS_DIR   install directory, default .ci/.tools (shared with conformance.sh)
set -euo pipefail

AXE_PKG=axe-core
AXE_PKG_VERSION=4.14.1

log() { printf 'axe-core: %s\n' "$*" >&2; }
die() { printf 'axe-core: ERROR: %s\n' "$*" >&2; exit 1; }

SCRIPT_DIR=$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOOLS_DIR=${CONFORMANCE_TOOLS_DIR:-$SCRIPT_DIR/.tools}
mkdir -p "$TOOLS_DIR"
TOOLS_DIR=$(cd "$TOOLS_DIR" && pwd)

# shellcheck source=node.sh
. "$SCRIPT_DIR/node.sh"
AXE_DIR=$TOOLS_DIR/axe-core
AXE_PKG_DIR=$AXE_DIR/node_modules/$AXE_PKG

STAGING=""
cleanup() { if [[ -n "$STAGING" ]]; then rm -rf -- "$STAGING"; fi; }
trap cleanup EXIT

install_node

installed_axe_version() {
	[[ -f "$AXE_PKG_DIR/package.json" && -f "$AXE_PKG_DIR/axe.min.js" ]] || return 1
	"$NODE" -e 'console.log(require(process.argv[1]).version)' "$AXE_PKG_DIR/package.json" 2>/dev/null
}

if [[ "$(installed_axe_version || true)" == "$AXE_PKG_VERSION" ]]; then
	log "$AXE_PKG@$AXE_PKG_VERSION already installed in $AXE_DIR"
else
	command -v npm >/dev/null 2>&1 || die "npm not found; it is needed once to fetch $AXE_PKG@$AXE_PKG_VERSION"
	log "installing $AXE_PKG@$AXE_PKG_VERSION into $AXE_DIR"
	STAGING=$(mktemp -d "$TOOLS_DIR/.axe-core.staging.XXXXXX")
	PATH="$(dirname -- "$NODE"):$PATH" npm_install "$STAGING" "$AXE_PKG@$AXE_PKG_VERSION" || die "npm install $AXE_PKG@$AXE_PKG_VERSION failed"
	rm -rf -- "$AXE_DIR"
	mv -- "$STAGING" "$AXE_DIR"
	STAGING=""
	[[ "$(installed_axe_version || true)" == "$AXE_PKG_VERSION" ]] || die "$AXE_PKG did not install correctly in $AXE_DIR"
	log "installed $AXE_PKG@$AXE_PKG_VERSION"
fi

printf 'export HOOKFLOW_AXE=%q\n' "$AXE_PKG_DIR/axe.min.js"
