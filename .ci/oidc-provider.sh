#!/usr/bin/env bash
# Install the OAuth authorization server that hookflow's OAuth tests run
# against: Node 22 and the npm package oidc-provider, pinned, under
# .ci/.tools/ (git-ignored). Idempotent: a second run installs nothing.
#
# Usage: .ci/oidc-provider.sh
#
# On success it prints, on stdout, the environment the tests read (and
# nothing else), so that a caller can eval it:
#   export HOOKFLOW_NODE=<node 22 binary>
#   export HOOKFLOW_OIDC_PROVIDER=<directory holding node_modules/oidc-provider>
# .ci/run evals it and adds HOOKFLOW_REQUIRE_OIDC=1, which makes the tests
# that need the server fail instead of skipping (see internal/oidctest).
#
# Node comes from .ci/node.sh, shared with .ci/conformance.sh, so one
# download serves both. Environment (optional):
#   CONFORMANCE_TOOLS_DIR   install directory, default .ci/.tools (shared with conformance.sh)
set -euo pipefail

OIDC_PKG=oidc-provider
OIDC_PKG_VERSION=9.13.3

log() { printf 'oidc-provider: %s\n' "$*" >&2; }
die() { printf 'oidc-provider: ERROR: %s\n' "$*" >&2; exit 1; }

SCRIPT_DIR=$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOOLS_DIR=${CONFORMANCE_TOOLS_DIR:-$SCRIPT_DIR/.tools}
mkdir -p "$TOOLS_DIR"
TOOLS_DIR=$(cd "$TOOLS_DIR" && pwd)

# shellcheck source=node.sh
. "$SCRIPT_DIR/node.sh"
OIDC_DIR=$TOOLS_DIR/oidc-provider
OIDC_PKG_DIR=$OIDC_DIR/node_modules/$OIDC_PKG

STAGING=""
cleanup() { if [[ -n "$STAGING" ]]; then rm -rf -- "$STAGING"; fi; }
trap cleanup EXIT

install_node

installed_oidc_version() {
	[[ -f "$OIDC_PKG_DIR/package.json" ]] || return 1
	"$NODE" -e 'console.log(require(process.argv[1]).version)' "$OIDC_PKG_DIR/package.json" 2>/dev/null
}

if [[ "$(installed_oidc_version || true)" == "$OIDC_PKG_VERSION" ]]; then
	log "$OIDC_PKG@$OIDC_PKG_VERSION already installed in $OIDC_DIR"
else
	command -v npm >/dev/null 2>&1 || die "npm not found; it is needed once to fetch $OIDC_PKG@$OIDC_PKG_VERSION"
	log "installing $OIDC_PKG@$OIDC_PKG_VERSION into $OIDC_DIR"
	STAGING=$(mktemp -d "$TOOLS_DIR/.oidc-provider.staging.XXXXXX")
	PATH="$(dirname -- "$NODE"):$PATH" npm_install "$STAGING" "$OIDC_PKG@$OIDC_PKG_VERSION" || die "npm install $OIDC_PKG@$OIDC_PKG_VERSION failed"
	rm -rf -- "$OIDC_DIR"
	mv -- "$STAGING" "$OIDC_DIR"
	STAGING=""
	[[ "$(installed_oidc_version || true)" == "$OIDC_PKG_VERSION" ]] || die "$OIDC_PKG did not install correctly in $OIDC_DIR"
	log "installed $OIDC_PKG@$OIDC_PKG_VERSION"
fi

printf 'export HOOKFLOW_NODE=%q\n' "$NODE"
printf 'export HOOKFLOW_OIDC_PROVIDER=%q\n' "$OIDC_DIR"
