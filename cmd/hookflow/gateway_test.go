package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/plugins/audit"
	"github.com/hookflow/hookflow/plugins/auth/oauth"
	"github.com/hookflow/hookflow/plugins/cache"
	"github.com/hookflow/hookflow/plugins/gateway/host"
	"github.com/hookflow/hookflow/plugins/intercept"
	"github.com/hookflow/hookflow/plugins/intercept/wire"
	"github.com/hookflow/hookflow/plugins/ratelimit"
)

// TestGatewayConfigErrors checks the errors of bad configurations: each at
// file:line:col, every one of a file at once, with a hint for near misses.
func TestGatewayConfigErrors(t *testing.T) {
	env := map[string]string{"SET": "value"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown top-level key", "upstream:\n  - name: a\n",
			[]string{`g.yaml:1:1: unknown key "upstream" in the configuration (did you mean "upstreams"?)`, `g.yaml:1:1: no upstream`}},
		{"unknown upstream key", "upstreams:\n  - name: a\n    comand: [x]\n",
			[]string{`g.yaml:3:5: unknown key "comand" in upstreams (did you mean "command"?)`, `g.yaml:2:5: upstream "a" needs a command or a url`}},
		{"command and url", "upstreams:\n  - name: a\n    command: [x]\n    url: http://h/mcp\n",
			[]string{`g.yaml:2:5: upstream "a" has a command and a url: give one`}},
		{"token on a command", "upstreams:\n  - {name: a, command: [x], token: t}\n",
			[]string{`g.yaml:2:5: upstream "a": token and headers are for url upstreams`}},
		{"two upstreams of one name", "upstreams:\n  - {name: a, command: [x]}\n  - {name: a, command: [y]}\n",
			[]string{`g.yaml:3:12: two upstreams are named "a"`}},
		{"bad duration", "upstreams:\n  - {name: a, command: [x], timeout: 5 seconds}\n",
			[]string{`g.yaml:2:38: want a duration such as 30s or 1m, got "5 seconds"`}},
		{"command not a list", "upstreams:\n  - name: a\n    command: {x: y}\n",
			[]string{`g.yaml:3:14: want a list, got a mapping`}},
		{"unset token variable", "upstreams:\n  - {name: a, url: 'http://h', token_env: UNSET}\n",
			[]string{`g.yaml:2:43: environment variable UNSET is not set`}},
		{"unknown app", "upstreams:\n  - {name: a, command: [x], app: mian}\napps:\n  - name: main\n",
			[]string{`g.yaml:2:34: upstream "a" is mounted into app "mian", which apps does not define (did you mean "main"?)`}},
		{"unknown app, apps first", "apps:\n  - name: billing\n  - name: search\nupstreams:\n  - name: a\n    command: [x]\n    app: biling\n",
			[]string{`g.yaml:7:10: upstream "a" is mounted into app "biling", which apps does not define (did you mean "billing"?)`}},
		{"unknown plugin", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  ratelimt: {per_session: 1/s}\n",
			[]string{`g.yaml:4:3: unknown key "ratelimt" in plugins (did you mean "ratelimit"?)`}},
		{"bad limit", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  ratelimit: {per_session: 10 per second}\n",
			[]string{`g.yaml:4:28: want a limit such as 10/s, 100/m or 1000/h, got "10 per second"`}},
		{"no limit", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  ratelimit: {}\n",
			[]string{`g.yaml:4:14: ratelimit: no budget is set: set per_session, per_principal, per_tool or tools`}},
		{"no limit, empty", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  ratelimit:\n",
			[]string{`g.yaml:4:13: ratelimit: no budget is set: set per_session, per_principal, per_tool or tools`}},
		{"no limit for a tool", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  ratelimit: {tools: {}}\n",
			[]string{`g.yaml:4:14: ratelimit: no budget is set: set per_session, per_principal, per_tool or tools`}},
		{"unknown flow", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  audit: {flows: [tools:call]}\n",
			[]string{`g.yaml:4:19: `, `tools:call`}},
		{"token without token", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  auth:\n    tokens:\n      - {user: u}\n",
			[]string{`g.yaml:6:9: auth tokens[0]: needs token or token_env`}},
		{"stdio and http", "serve: {stdio: true, http: ':1'}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:8: serve stdio or http, not both`}},
		{"stateless over stdio", "serve: {stdio: true, stateless: true}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:8: stateless is for http: over stdio there are no HTTP sessions to do without`}},
		{"drain over stdio", "serve: {stdio: true, drain: 5s}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:8: drain is for http: over stdio there is nothing to drain`}},
		{"unclosed list", "upstreams: [\n", []string{`g.yaml:2:1: YAML syntax: did not find expected node content`}},
		{"unclosed list before a key", "upstreams: [a, b\nplugins: {}\n",
			[]string{`g.yaml:2:8: YAML syntax: did not find expected ',' or ']' (while parsing a flow sequence at 1:12)`}},
		{"bad indentation", "upstreams:\n  - name: a\n    command: [x]\n   url: http://h\n",
			[]string{`g.yaml:4:4: YAML syntax: did not find expected '-' indicator (while parsing a block collection at 2:3)`}},
		{"mapping in a plain value", "name: a: b\nupstreams: []\n", []string{`g.yaml:1:8: YAML syntax: mapping values are not allowed in this context`}},
		{"tab indentation", "upstreams:\n\t- name: a\n", []string{`g.yaml:2:1: YAML syntax: found character that cannot start any token`}},
		{"unknown alias", "name: *n\nupstreams: []\n", []string{`g.yaml:1:7: YAML syntax: unknown anchor 'n' referenced`}},
		{"bad url", "upstreams:\n  - {name: a, url: 'localhost:8080/mcp'}\n",
			[]string{`g.yaml:2:20: want an http or https URL, got "localhost:8080/mcp"`}},
		{"oauth client secret in the file", "upstreams:\n  - name: a\n    url: http://h/mcp\n    oauth: {token_url: 'http://idp/token', client_id: gw, client_secret: s3cr3t}\n",
			[]string{`g.yaml:4:74: a client secret does not belong in the configuration file: put it in an environment variable and name that with client_secret_env`}},
		{"oauth missing keys", "upstreams:\n  - name: a\n    url: http://h/mcp\n    oauth: {token_url: 'http://idp/token'}\n",
			[]string{`g.yaml:4:12: oauth needs client_id, client_secret_env`}},
		{"oauth empty", "upstreams:\n  - name: a\n    url: http://h/mcp\n    oauth:\n",
			[]string{`g.yaml:4:11: oauth needs token_url, client_id, client_secret_env`}},
		{"oauth misspelt key", "upstreams:\n  - name: a\n    url: http://h/mcp\n    oauth: {token_url: 'http://idp/token', client_id: gw, client_secret_evn: SET}\n",
			[]string{`g.yaml:4:59: unknown key "client_secret_evn" in oauth (did you mean "client_secret_env"?)`, `g.yaml:4:12: oauth needs client_secret_env`}},
		{"oauth bad token url", "upstreams:\n  - name: a\n    url: http://h/mcp\n    oauth: {token_url: idp/token, client_id: gw, client_secret_env: SET}\n",
			[]string{`g.yaml:4:24: want an http or https URL, got "idp/token"`}},
		{"oauth unset secret variable", "upstreams:\n  - name: a\n    url: http://h/mcp\n    oauth: {token_url: 'http://idp/token', client_id: gw, client_secret_env: UNSET}\n",
			[]string{`g.yaml:4:78: environment variable UNSET is not set`}},
		{"oauth on a command", "upstreams:\n  - name: a\n    command: [x]\n    oauth: {token_url: 'http://idp/token', client_id: gw, client_secret_env: SET}\n",
			[]string{`g.yaml:2:5: upstream "a": oauth is for url upstreams`}},
		{"oauth and token", "upstreams:\n  - name: a\n    url: http://h/mcp\n    token_env: SET\n    oauth: {token_url: 'http://idp/token', client_id: gw, client_secret_env: SET}\n",
			[]string{`g.yaml:2:5: upstream "a": give token (or token_env) or oauth, not both`}},
		{"token and token_env", "upstreams:\n  - name: a\n    url: http://h/mcp\n    token: x\n    token_env: SET\n",
			[]string{`g.yaml:5:5: give token or token_env, not both`}},
		{"token_env and token", "upstreams:\n  - {name: a, url: 'http://h/mcp', token_env: SET, token: x}\n",
			[]string{`g.yaml:2:52: give token or token_env, not both`}},
		{"token and an Authorization header", "upstreams:\n  - name: a\n    url: http://h/mcp\n    headers: {X-Team: blue, authorization: Bearer y}\n    token: x\n",
			[]string{`g.yaml:4:29: upstream "a": an Authorization header and token (or token_env) both authenticate to the upstream: give one`}},
		{"token_env and an Authorization header", "upstreams:\n  - name: a\n    url: http://h/mcp\n    token_env: SET\n    headers: {Authorization: Bearer y}\n",
			[]string{`g.yaml:5:15: upstream "a": an Authorization header and token (or token_env) both authenticate to the upstream: give one`}},
		{"oauth and an Authorization header", "upstreams:\n  - name: a\n    url: http://h/mcp\n    headers: {Authorization: Bearer y}\n    oauth: {token_url: 'http://idp/token', client_id: gw, client_secret_env: SET}\n",
			[]string{`g.yaml:4:15: upstream "a": an Authorization header and oauth both authenticate to the upstream: give one`}},
		{"bad tool glob", "upstreams:\n  - {name: a, command: [x], allow_tools: [ok, 'read_[a']}\n",
			[]string{`g.yaml:2:47: "read_[a" is not a glob (* any characters, ? one, [a-z] a class): syntax error in pattern`}},
		{"empty tool name", "upstreams:\n  - {name: a, command: [x], deny_tools: ['']}\n",
			[]string{`g.yaml:2:42: want a tool name or a glob such as read_*, got ""`}},
		{"resource prefix with a colon", "upstreams:\n  - {name: a, command: [x], resource_prefix: 'files:'}\n",
			[]string{`g.yaml:2:46: want the start of a URI scheme such as files+ (a letter, then letters, digits, +, - or ., ending with +, - or .), got "files:"`}},
		{"required not a bool", "upstreams:\n  - {name: a, command: [x], required: maybe}\n",
			[]string{`g.yaml:2:39: want true or false, got "maybe"`}},
		{"env without =", "upstreams:\n  - name: a\n    command: [x]\n    env: [A=1, FOO, =x]\n",
			[]string{`g.yaml:4:16: want an environment entry such as KEY=value, got "FOO"`, `g.yaml:4:21: want an environment entry such as KEY=value, got "=x"`}},
		{"inherit_env with =", "upstreams:\n  - name: a\n    command: [x]\n    inherit_env: [LANG, LC_ALL=C]\n",
			[]string{`g.yaml:4:25: want the name of an environment variable such as LANG, got "LC_ALL=C"`}},
		{"misspelt inherit_env", "upstreams:\n  - name: a\n    command: [x]\n    inherit_evn: [LANG]\n",
			[]string{`g.yaml:4:5: unknown key "inherit_evn" in upstreams (did you mean "inherit_env"?)`}},
		{"unknown protocol version", "upstreams:\n  - {name: a, command: [x], protocol_version: 1999-01-01}\n",
			[]string{`g.yaml:2:47: unknown MCP protocol version "1999-01-01" (known: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)`}},
		{"misspelt protocol version", "upstreams:\n  - {name: a, command: [x], protocol_version: 2025-06-81}\n",
			[]string{`g.yaml:2:47: unknown MCP protocol version "2025-06-81" (did you mean "2025-06-18"?)`}},
		{"removed http_transport", "upstreams:\n  - {name: a, url: 'http://h/mcp', http_transport: sdk}\n",
			[]string{`g.yaml:2:36: http_transport was removed: the gateway reaches every url upstream with hookflow's streamable HTTP client; delete the key`}},
		{"removed http_transport, hookflow", "upstreams:\n  - name: a\n    url: http://h/mcp\n    http_transport: hookflow\n",
			[]string{`g.yaml:4:5: http_transport was removed: the gateway reaches every url upstream with hookflow's streamable HTTP client; delete the key`}},
		{"oauth not a mapping", "upstreams:\n  - name: a\n    url: http://h/mcp\n    oauth: yes\n",
			[]string{`g.yaml:4:12: oauth must be a mapping of keys to values`}},
		{"health not a path", "serve: {http: ':1', health: healthz}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:29: want a path such as /health, got "healthz"`}},
		{"health with a query", "serve: {http: ':1', health: '/h?x=1'}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:29: want a path such as /health, got "/h?x=1"`}},
		{"health_addr without a port", "serve: {stdio: true, health_addr: localhost}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:35: want an address such as 127.0.0.1:9090, got "localhost"`}},
		{"health_addr with a bad port", "serve: {stdio: true, health_addr: ':99999'}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:35: want an address such as 127.0.0.1:9090, got ":99999"`}},
		{"log format", "log: {format: jsn}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:15: want text or json, got "jsn" (did you mean "json"?)`}},
		{"log level", "log: {level: verbose}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:14: want debug, info, warn or error, got "verbose"`}},
		{"relative resource metadata URL", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  auth: {allow_anonymous: true, resource_metadata_url: /.well-known/x}\n",
			[]string{`g.yaml:4:56: auth resource_metadata_url: want an absolute http or https URL, got "/.well-known/x"`}},
		{"drain not a duration", "serve: {http: ':1', drain: soon}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:28: want a duration such as 30s or 1m, got "soon"`}},
		{"metrics not a path", "serve: {http: ':1', health: /h, metrics: metrics}\nupstreams:\n  - {name: a, command: [x]}\nplugins:\n  otel: {exporter: prometheus}\n",
			[]string{`g.yaml:1:42: want a path such as /metrics, got "metrics"`}},
		{"metrics without a plugin", "serve: {http: ':1', health: /h, metrics: /metrics}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:42: no plugin serves metrics: configure plugins.otel with exporter: prometheus`}},
		{"metrics at a health endpoint", "serve: {http: ':1', health: /h, metrics: /h/ready}\nupstreams:\n  - {name: a, command: [x]}\nplugins:\n  otel: {exporter: prometheus}\n",
			[]string{`g.yaml:1:42: /h/ready is a health endpoint's path: choose another, such as /metrics`}},
		{"metrics hiding an endpoint", "serve: {http: ':1', health: /h, metrics: /mcp/a/metrics}\nupstreams:\n  - {name: a, command: [x]}\nendpoints:\n  - {path: /mcp/a, select: [{}], plugins: {otel: {exporter: prometheus}}}\n",
			[]string{`g.yaml:1:42: /mcp/a/metrics is served on the MCP listener, where it hides endpoint /mcp/a: choose another path, or serve.health_addr`}},
		{"prometheus without serve.metrics", "serve: {http: ':1', health: /h}\nupstreams:\n  - {name: a, command: [x]}\nplugins:\n  otel: {exporter: prometheus}\n",
			[]string{`g.yaml:5:20: the metrics of exporter prometheus are scraped at serve.metrics, which is not set: set it to a path such as /metrics`}},
		{"misspelt health", "serve: {http: ':1', helth: /h}\nupstreams:\n  - {name: a, command: [x]}\n",
			[]string{`g.yaml:1:21: unknown key "helth" in serve (did you mean "health"?)`}},
		{"intercept misspelt key", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    timout: 1s\n",
			[]string{`g.yaml:6:5: unknown key "timout" in intercept (did you mean "timeout"?) (known: connect_timeout, explain, name, policy, retry_after, servers, timeout)`}},
		{"intercept without servers", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept: {timeout: 1s}\n",
			[]string{`g.yaml:4:14: intercept servers: at least one interceptor host is required`}},
		{"intercept empty", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n",
			[]string{`g.yaml:4:13: intercept servers: at least one interceptor host is required`}},
		{"intercept host without url or command", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g}]\n",
			[]string{`g.yaml:5:15: intercept servers[0]: set url (streamable HTTP) or command (stdio)`}},
		{"intercept host with url and command", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp', command: [x]}]\n",
			[]string{`g.yaml:5:15: intercept servers[0]: set url or command, not both`}},
		{"intercept host without a name", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{url: 'http://h/mcp'}]\n",
			[]string{`g.yaml:5:15: intercept servers[0].name: required`}},
		{"intercept hosts of one name", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers:\n      - {name: g, url: 'http://h/mcp'}\n      - {name: g, command: [x]}\n",
			[]string{`g.yaml:7:16: intercept servers[1].name: "g" names two hosts`}},
		{"intercept host name with a colon", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: 'g:1', url: 'http://h/mcp'}]\n",
			[]string{`g.yaml:5:22: intercept servers[0].name: "g:1" holds ":", which separates a host's name from an interceptor's (guard:no-destructive-commands)`}},
		{"intercept host bad url", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'guard:8080'}]\n",
			[]string{`g.yaml:5:30: intercept servers[0].url: want an http or https URL, got "guard:8080"`}},
		{"intercept host token on a command", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, command: [x], token_env: SET}]\n",
			[]string{`g.yaml:5:15: intercept servers[0]: a token is sent over HTTP only: set url, or leave the token out`}},
		{"intercept host token and token_env", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp', token: t, token_env: SET}]\n",
			[]string{`g.yaml:5:15: intercept servers[0]: token and token_env both give the host's bearer token: keep one`}},
		{"intercept host unset token variable", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp', token_env: UNSET}]\n",
			[]string{`g.yaml:5:57: intercept servers[0].token_env: environment variable UNSET is not set`}},
		{"intercept host empty program", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, command: ['', -v]}]\n",
			[]string{`g.yaml:5:34: intercept servers[0].command: the program is empty`}},
		{"intercept host env without =", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, command: [x], env: [FOO]}]\n",
			[]string{`g.yaml:5:45: intercept servers[0].env[0]: want an environment entry such as KEY=value, got "FOO"`}},
		{"intercept policy unknown host", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: guard, url: 'http://h/mcp'}]\n    policy:\n      - {interceptor: 'gaurd:deny', fail_open: true}\n",
			[]string{`g.yaml:7:23: intercept policy[0].interceptor: no interceptor host is named "gaurd" (did you mean "guard"?)`}},
		{"intercept policy without interceptor", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - {fail_open: true}\n",
			[]string{`g.yaml:7:9: intercept policy[0].interceptor: required: the interceptor, such as guard:no-destructive-commands`}},
		{"intercept policy empty interceptor", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - {interceptor: 'g:'}\n",
			[]string{`g.yaml:7:23: intercept policy[0].interceptor: want an interceptor such as guard:no-destructive-commands (host:interceptor) or no-destructive-commands (on any host), got "g:"`}},
		{"intercept policy twice", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - {interceptor: 'g:deny', mode: audit}\n      - {interceptor: 'g:deny', fail_open: true}\n",
			[]string{`g.yaml:8:23: intercept policy[1].interceptor: policy[0] names the same interceptor`}},
		{"intercept policy unknown mode", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - {interceptor: deny, mode: shadow}\n",
			[]string{`g.yaml:7:35: intercept policy[0].mode: want active or audit, got "shadow"`}},
		{"intercept policy mode enforce", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - {interceptor: deny, mode: enforce}\n",
			[]string{`g.yaml:7:35: intercept policy[0].mode: want active or audit, got "enforce" (the older drafts' name of active)`}},
		{"intercept policy mode misspelt", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - interceptor: deny\n        mode: adit\n",
			[]string{`g.yaml:8:15: intercept policy[0].mode: want active or audit, got "adit" (did you mean "audit"?)`}},
		{"intercept policy mode a list", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - {interceptor: deny, mode: [audit]}\n",
			[]string{`g.yaml:7:35: want a string, got a list`}},
		{"intercept policy misspelt key", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - {interceptor: deny, failopen: true}\n",
			[]string{`g.yaml:7:29: unknown key "failopen" in policy (did you mean "fail_open"?)`}},
		{"intercept policy bad timeout", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - {interceptor: deny, timeout: -1s}\n",
			[]string{`g.yaml:7:38: want a duration such as 30s or 1m, got "-1s"`}},
		{"intercept policy bad phase", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - interceptor: deny\n        hooks: [{events: [tools/call], phase: both}]\n",
			[]string{`g.yaml:8:47: intercept policy[0].hooks[0].phase: want request or response, got "both"`}},
		{"intercept policy hook without events", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - interceptor: deny\n        hooks: [{phase: request}]\n",
			[]string{`g.yaml:8:17: intercept policy[0].hooks[0].events: list at least one event, such as tools/call`}},
		{"intercept policy empty hooks", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - {interceptor: deny, hooks: []}\n",
			[]string{`g.yaml:7:36: intercept policy[0].hooks: narrows the interceptor's hooks to those listed: list at least one, or leave the interceptor out with disabled: true`}},
		{"intercept policy bad priority hint", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - {interceptor: upper, priority_hint: {request: 1, respons: 2}}\n",
			[]string{`g.yaml:7:58: unknown key "respons" in priority_hint (did you mean "response"?)`}},
		{"intercept policy config not a mapping", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, url: 'http://h/mcp'}]\n    policy:\n      - {interceptor: deny, config: [a]}\n",
			[]string{`g.yaml:7:37: config must be a mapping of keys to values`}},
		{"policy rule that does not compile", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  policy:\n    rules:\n      - name: finance\n        allow: '\"finance\" in claim.groups'\n",
			[]string{`g.yaml:7:16: policy rules[0].allow: the expression does not compile: 1:14: undeclared reference to 'claim'`}},
		{"policy rule whose when is not a bool", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  policy:\n    rules: [{name: r, when: entity.name, allow: 'true'}]\n",
			[]string{`g.yaml:5:29: policy rules[0].when: the expression is a string, want a bool`}},
		{"policy rule misspelt key", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  policy:\n    rules: [{name: r, alow: 'true'}]\n",
			[]string{`g.yaml:5:23: unknown key "alow" in rules (did you mean "allow"?)`}},
		{"intercept in an app", "upstreams:\n  - {name: a, command: [x], app: x}\napps:\n  - name: x\n    plugins:\n      intercept: {servers: [{name: g}]}\n",
			[]string{`g.yaml:6:29: intercept servers[0]: set url (streamable HTTP) or command (stdio)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseGatewayConfig("g.yaml", []byte(tc.yaml), getenv)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestGatewayConfigNoCascade checks that a mistake is reported once, not
// also as the absence of what it failed to give.
func TestGatewayConfigNoCascade(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"bad limit", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  ratelimit:\n    per_session: 5/fortnight\n",
			`g.yaml:5:18: want a limit such as 10/s, 100/m or 1000/h, got "5/fortnight"`},
		{"misspelt limit", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  ratelimit:\n    per_sesion: 5/s\n",
			`g.yaml:5:5: unknown key "per_sesion" in ratelimit (did you mean "per_session"?) (known: on_backend_error, per_principal, per_session, per_tool, priority, redis, timeout, tools)`},
		{"bad tool limit", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  ratelimit: {tools: {slow: often}}\n",
			`g.yaml:4:29: want a limit such as 10/s, 100/m or 1000/h, got "often"`},
		{"misspelt intercept servers", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    server: [{name: g, command: [x]}]\n",
			`g.yaml:5:5: unknown key "server" in intercept (did you mean "servers"?) (known: connect_timeout, explain, name, policy, retry_after, servers, timeout)`},
		{"intercept servers not a list", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: {name: g, command: [x]}\n",
			`g.yaml:5:14: want a list, got a mapping`},
		{"misspelt policy interceptor", "upstreams:\n  - {name: a, command: [x]}\nplugins:\n  intercept:\n    servers: [{name: g, command: [x]}]\n    policy: [{interceptr: 'g:deny'}]\n",
			`g.yaml:6:15: unknown key "interceptr" in policy (did you mean "interceptor"?) (known: config, disabled, fail_open, hooks, interceptor, mode, priority_hint, timeout)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseGatewayConfig("g.yaml", []byte(tc.yaml), func(string) string { return "" })
			if err == nil || err.Error() != tc.want {
				t.Errorf("error:\n%v\nwant exactly:\n%s", err, tc.want)
			}
		})
	}
}

func TestGatewayConfig(t *testing.T) {
	yaml := `name: gw
log: {format: json, level: warn}
serve: {http: "127.0.0.1:0", stateless: true, drain: 5s, session_timeout: 1h}
upstreams:
  - name: a
    url: http://h/mcp
    token_env: TOK
    headers: {X-Team: blue}
    prefix: a_
    timeout: 2s
    idle_timeout: 0s
    app: main
  - name: b
    command: [prog, -v]
    env: [A=1]
    inherit_env: [LANG]
    shared: true
    max_sessions: 8
    resource_prefix: b+
    allow_tools: [read_*, list]
    deny_tools: [read_secret]
    required: false
    idle_timeout: 2m
apps:
  - name: main
    plugins:
      ratelimit: {per_session: 10/s, tools: {slow: 1/m}}
plugins:
  audit: {file: stderr, redact: [password], flows: [tools:call-tool]}
  auth:
    tokens: [{token: t1, user: ada, scopes: [read]}]
    tool_scopes: {a_write: [write]}
    resource_metadata_url: https://gw.example/.well-known/oauth-protected-resource
  cache: {ttl: 1m}
  noop: true
`
	cfg, err := parseGatewayConfig("g.yaml", []byte(yaml), func(k string) string { return map[string]string{"TOK": "secret"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	a, b := cfg.Upstreams[0], cfg.Upstreams[1]
	if cfg.Name != "gw" || !cfg.Serve.Stateless || cfg.Serve.Drain != 5*time.Second || cfg.Serve.SessionTimeout != time.Hour || a.Token != "secret" || a.Header.Get("X-Team") != "blue" || a.Prefix != "a_" ||
		a.Timeout != 2*time.Second || a.App != "main" || b.Command[1] != "-v" || !b.Shared || b.Env[0] != "A=1" || !slices.Equal(b.InheritEnv, []string{"LANG"}) || b.MaxSessions != 8 ||
		b.ResourcePrefix != "b+" || !slices.Equal(b.AllowTools, []string{"read_*", "list"}) || !slices.Equal(b.DenyTools, []string{"read_secret"}) || !b.Optional || a.Optional || b.IdleTimeout != 2*time.Minute || a.IdleTimeout >= 0 {
		t.Errorf("decoded %+v", cfg)
	}
	if got := section(cfg.Apps[0].Plugins, "ratelimit").(ratelimit.Config); got.PerSession != ratelimit.Per(10, time.Second) || got.Tools["slow"] != ratelimit.Per(1, time.Minute) {
		t.Errorf("ratelimit = %+v", got)
	}
	p := cfg.Plugins
	if a, c := section(p, "audit").(audit.Config), section(p, "cache").(cache.Config); !a.File.Stderr || !slices.Equal(a.Redact, []string{"password"}) || !slices.Equal(a.Flows, []flows.ID{flows.ToolsCallTool}) || c.TTL != time.Minute {
		t.Errorf("listed plugins = %+v", p.List)
	}
	if a := section(p, "auth").(oauth.PluginConfig); a.Tokens[0].User != "ada" || !p.Noop ||
		a.ResourceMetadataURL != "https://gw.example/.well-known/oauth-protected-resource" {
		t.Errorf("plugins = %+v", p)
	}
	if cfg.Log.Format != "json" || cfg.Log.Level == nil || *cfg.Log.Level != slog.LevelWarn {
		t.Errorf("log = %+v", cfg.Log)
	}
}

// TestNewGatewayLogger checks the log's format and which level wins: -v,
// then the configuration's, then warn under -explain, else info.
func TestNewGatewayLogger(t *testing.T) {
	errorLevel := slog.LevelError
	for _, tc := range []struct {
		name             string
		l                host.LogConfig
		verbose, explain bool
		want             slog.Level
	}{
		{"default", host.LogConfig{}, false, false, slog.LevelInfo},
		{"explain", host.LogConfig{}, false, true, slog.LevelWarn},
		{"configured", host.LogConfig{Level: &errorLevel}, false, true, slog.LevelError},
		{"verbose wins", host.LogConfig{Level: &errorLevel}, true, false, slog.LevelDebug},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := gatewayLogger(io.Discard, tc.l, tc.verbose, tc.explain)
			for _, lv := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
				if got, want := l.Enabled(context.Background(), lv), lv >= tc.want; got != want {
					t.Errorf("Enabled(%v) = %v, want %v", lv, got, want)
				}
			}
		})
	}
	var buf bytes.Buffer
	gatewayLogger(&buf, host.LogConfig{Format: "json"}, false, false).Info("hookflow gateway: serving", "addr", "127.0.0.1:1")
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil || rec["msg"] != "hookflow gateway: serving" || rec["addr"] != "127.0.0.1:1" {
		t.Errorf("JSON log line %q: %v %v", buf.String(), rec, err)
	}
}

// TestGatewayConfigIntercept decodes the intercept plugin's settings, at
// the server and in an app, into the plugin's configuration: every key,
// a command's dir relative to the file, and its env and inherit_env as
// they are (the plugin builds the command's environment and reads
// token_env).
func TestGatewayConfigIntercept(t *testing.T) {
	yaml := `upstreams:
  - {name: a, command: [x], app: main}
plugins:
  audit: {file: stderr}
  intercept:
    servers:
      - {name: guard, url: 'https://guard.internal/mcp', token_env: HOOKFLOW_TEST_GUARD_TOKEN}
      - {name: pii, command: [pii-redactor, --stdio], env: [MODE=strict], inherit_env: [LANG], dir: bin}
    timeout: 2s
    connect_timeout: 3s
    retry_after: 4s
    explain: true
    policy:
      - {interceptor: 'guard:no-destructive-commands', fail_open: false, mode: active, timeout: 1s}
      - interceptor: redact
        mode: audit
        priority_hint: {request: -5, response: 7}
        hooks: [{events: [tools/call, 'resources/*'], phase: response}]
        config: {fields: [ssn], strict: true}
      - {interceptor: 'pii:upper', disabled: true, fail_open: true, priority_hint: 3}
apps:
  - name: main
    plugins:
      intercept:
        servers: [{name: local, url: 'http://127.0.0.1:9/mcp', token: t0}]
`
	t.Setenv("HOOKFLOW_TEST_GUARD_TOKEN", "s3cret")
	cfg, err := parseGatewayConfig("/etc/hookflow/g.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := section(cfg.Plugins, "intercept").(intercept.Config)
	wantServers := []intercept.Server{
		{Name: "guard", URL: "https://guard.internal/mcp", TokenEnv: "HOOKFLOW_TEST_GUARD_TOKEN"},
		{Name: "pii", Command: []string{"pii-redactor", "--stdio"}, Env: []string{"MODE=strict"}, InheritEnv: []string{"LANG"}, Dir: "/etc/hookflow/bin"},
	}
	if !reflect.DeepEqual(got.Servers, wantServers) {
		t.Errorf("servers = %+v\nwant      %+v", got.Servers, wantServers)
	}
	if got.Timeout != 2*time.Second || got.ConnectTimeout != 3*time.Second || got.RetryAfter != 4*time.Second || !got.Explain {
		t.Errorf("intercept = %+v", got)
	}
	// policy is a policy as the file gives it, its priority hint as
	// {request, response}.
	type policy struct {
		id       string
		disabled bool
		failOpen string
		mode     wire.Mode
		hint     [2]int32
		timeout  time.Duration
		hooks    string
		config   string
	}
	var policies []policy
	for _, p := range got.Policy {
		q := policy{id: p.ID, disabled: p.Disabled, failOpen: "unset", mode: p.Mode, timeout: p.Timeout, hooks: fmt.Sprint(p.Hooks), config: fmt.Sprint(p.Config)}
		if p.FailOpen != nil {
			q.failOpen = strconv.FormatBool(*p.FailOpen)
		}
		if p.PriorityHint != nil {
			q.hint = [2]int32{p.PriorityHint.Request, p.PriorityHint.Response}
		}
		policies = append(policies, q)
	}
	wantPolicies := []policy{
		{id: "guard:no-destructive-commands", failOpen: "false", mode: wire.Active, timeout: time.Second, hooks: "[]", config: "map[]"},
		{id: "redact", failOpen: "unset", mode: wire.Audit, hint: [2]int32{-5, 7}, hooks: "[{[tools/call resources/*] response}]", config: "map[fields:[ssn] strict:true]"},
		{id: "pii:upper", disabled: true, failOpen: "true", hint: [2]int32{3, 3}, hooks: "[]", config: "map[]"},
	}
	if !reflect.DeepEqual(policies, wantPolicies) {
		t.Errorf("policies = %+v\nwant       %+v", policies, wantPolicies)
	}
	if got := section(cfg.Apps[0].Plugins, "intercept").(intercept.Config).Servers; !reflect.DeepEqual(got, []intercept.Server{{Name: "local", URL: "http://127.0.0.1:9/mcp", Token: "t0"}}) {
		t.Errorf("the app's intercept servers = %+v", got)
	}
}

// TestGatewayConfigOAuth decodes an upstream's oauth client and checks
// the token request its token source makes: client credentials with the
// secret from the environment, the scopes, and the upstream's URL as the
// resource unless one is given.
func TestGatewayConfigOAuth(t *testing.T) {
	type request struct{ id, secret, grant, scope, resource string }
	var (
		mu   sync.Mutex
		seen []request
	)
	tokenURL := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, _ := r.BasicAuth()
		_ = r.ParseForm()
		mu.Lock()
		seen = append(seen, request{id, secret, r.Form.Get("grant_type"), r.Form.Get("scope"), r.Form.Get("resource")})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"tok","token_type":"Bearer","expires_in":3600}`))
	}))
	defer tokenURL.Close()
	yaml := `upstreams:
  - name: billing
    url: http://billing.internal/mcp
    oauth:
      token_url: ` + tokenURL.URL + `/token
      client_id: hookflow-gateway
      client_secret_env: BILLING_SECRET
      scopes: [billing:read, billing:write]
  - name: search
    url: http://search.internal/mcp
    oauth: {token_url: '` + tokenURL.URL + `/token', client_id: gw2, client_secret_env: SEARCH_SECRET, resource: 'https://search.example'}
`
	env := map[string]string{"BILLING_SECRET": "b-secret", "SEARCH_SECRET": "s-secret"}
	cfg, err := parseGatewayConfig("g.yaml", []byte(yaml), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := []request{
		{"hookflow-gateway", "b-secret", "client_credentials", "billing:read billing:write", "http://billing.internal/mcp"},
		{"gw2", "s-secret", "client_credentials", "", "https://search.example"},
	}
	for i, u := range cfg.Upstreams {
		if u.TokenSource == nil || u.Token != "" {
			t.Fatalf("upstream %s: token %q, token source %v", u.Name, u.Token, u.TokenSource)
		}
		tok, err := u.TokenSource.Token()
		if err != nil || tok.AccessToken != "tok" {
			t.Fatalf("upstream %s: token %v, %v", u.Name, tok, err)
		}
		mu.Lock()
		if got := seen[len(seen)-1]; got != want[i] {
			t.Errorf("upstream %s: token request %+v, want %+v", u.Name, got, want[i])
		}
		mu.Unlock()
	}
}

func TestGatewayCommandUsage(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("upstreams:\n  - {name: a, command: [go, version], dir: sub}\nplugins:\n  ratelimit: {per_session: 1/s}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	if err := os.WriteFile(missing, []byte("upstreams:\n  - {name: a, command: [./nothing-here]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var tokenRequests atomic.Int64
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tokenRequests.Add(1)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer idp.Close()
	t.Setenv("HOOKFLOW_TEST_CLIENT_SECRET", "secret")
	oauth := filepath.Join(dir, "oauth.yaml")
	if err := os.WriteFile(oauth, []byte("upstreams:\n  - name: a\n    url: http://127.0.0.1:9/mcp\n    oauth: {token_url: '"+idp.URL+
		"', client_id: gw, client_secret_env: HOOKFLOW_TEST_CLIENT_SECRET}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	httpHealth := filepath.Join(dir, "http-health.yaml")
	if err := os.WriteFile(httpHealth, []byte("serve: {http: '127.0.0.1:0', health: /h}\nupstreams:\n  - {name: a, command: [go, version]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdioHealth := filepath.Join(dir, "stdio-health.yaml")
	if err := os.WriteFile(stdioHealth, []byte("serve: {stdio: true, health: /h}\nupstreams:\n  - {name: a, command: [go, version]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	metricsNoHealth := filepath.Join(dir, "metrics.yaml")
	if err := os.WriteFile(metricsNoHealth, []byte("serve: {http: '127.0.0.1:0', metrics: /metrics}\nupstreams:\n  - {name: a, command: [go, version]}\nplugins:\n  otel: {exporter: prometheus}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdioOnly := filepath.Join(dir, "stdio.yaml")
	if err := os.WriteFile(stdioOnly, []byte("serve: {stdio: true}\nupstreams:\n  - {name: a, command: [go, version]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	httpOnly := filepath.Join(dir, "http.yaml")
	if err := os.WriteFile(httpOnly, []byte("serve: {http: '127.0.0.1:0', stateless: true, drain: 5s}\nupstreams:\n  - {name: a, command: [go, version]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("upstreams:\n  - {name: a}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"gateway"}, exitUsage, "give -config, or one upstream with -command or -url"},
		{[]string{"gateway", "-config", good, "-url", "http://x"}, exitUsage, "give -config"},
		{[]string{"gateway", "-config", good, "-check"}, exitOK, good + ": ok (1 upstreams)"},
		{[]string{"gateway", "-config", oauth, "-check"}, exitOK, oauth + ": ok (1 upstreams)"},
		{[]string{"gateway", "-config", bad, "-check"}, exitFailed, bad + `:2:5: upstream "a" needs a command or a url`},
		{[]string{"gateway", "-config", missing, "-check"}, exitFailed, missing + `:2:25: upstream "a": program "./nothing-here" (` + filepath.Join(dir, "nothing-here") + `): no such file or directory`},
		{[]string{"gateway", "-command", "go 'a b'", "-check"}, exitOK, "flags: ok (1 upstreams)"},
		{[]string{"gateway", "-command", "no-such-program-xyz -v", "-check"}, exitFailed,
			`hookflow gateway: -command: program "no-such-program-xyz": executable file not found in $PATH`},
		{[]string{"gateway", "-command", "prog 'a b", "-check"}, exitUsage, "unterminated quote"},
		{[]string{"gateway", "-config", good, "-explain", "tools:cal-tool"}, exitUsage, `did you mean "tools:call-tool"`},
		{[]string{"gataway"}, exitUsage, `did you mean "gateway"`},
		{[]string{"gateway", "-config", good, "-health", "/healthz", "-health-addr", "127.0.0.1:0", "-check"}, exitOK, good + ": ok"},
		{[]string{"gateway", "-config", good, "-drain", "-1s", "-check"}, exitUsage, `-drain: want a duration such as 5s, got -1s`},
		{[]string{"gateway", "-config", good, "-log-format", "xml", "-check"}, exitUsage, `-log-format: want text or json, got "xml"`},
		{[]string{"gateway", "-command", "go version", "-name", "", "-check"}, exitUsage, `-name: the upstream needs a name`},
		{[]string{"gateway", "-command", "go version", "-name", "tools", "-check"}, exitOK, "flags: ok (1 upstreams)"},
		{[]string{"gateway", "-config", good, "-session-timeout", "-1s", "-check"}, exitUsage, `-session-timeout: want a duration such as 30m, got -1s`},
		{[]string{"gateway", "-config", good, "-session-timeout", "1m", "-stdio", "-check"}, exitUsage, `-session-timeout is for streamable HTTP (-http)`},
		{[]string{"gateway", "-config", good, "-health", "healthz", "-check"}, exitUsage, `-health: want a path such as /health, got "healthz"`},
		{[]string{"gateway", "-config", good, "-health-addr", "9090", "-check"}, exitUsage, `-health-addr: want an address such as 127.0.0.1:9090, got "9090"`},
		{[]string{"gateway", "-config", stdioHealth, "-check"}, exitFailed,
			"serve.health needs an HTTP listener, and stdio serves none: set serve.health_addr (-health-addr addr) to serve the health endpoints on a listener of their own next to stdio, or leave serve.health out (-health '') to serve none"},
		{[]string{"gateway", "-config", stdioHealth, "-health", "", "-check"}, exitOK, stdioHealth + ": ok"},
		{[]string{"gateway", "-config", metricsNoHealth, "-check"}, exitFailed,
			"serve.metrics is served with the health endpoints: set serve.health (on the MCP listener) or serve.health_addr (a listener of their own) too"},
		{[]string{"gateway", "-config", metricsNoHealth, "-health", "/h", "-check"}, exitOK, metricsNoHealth + ": ok"},
		{[]string{"gateway", "-config", httpHealth, "-stdio", "-check"}, exitFailed, "(-health-addr addr) to serve the health endpoints on a listener of their own next to stdio, or leave serve.health out (-health '')"},
		{[]string{"gateway", "-config", stdioHealth, "-http", "127.0.0.1:0", "-check"}, exitOK, stdioHealth + ": ok"},
		{[]string{"gateway", "-config", stdioHealth, "-health-addr", "127.0.0.1:9090", "-check"}, exitOK, stdioHealth + ": ok"},
		{[]string{"gateway", "-config", good, "-check", "-explain", "tools:call-tool"}, exitUsage, "hookflow gateway: -check and -explain exclude each other: give one"},
		{[]string{"gateway", "-command", "go version", "-http", "127.0.0.1:0", "-stdio"}, exitUsage, "hookflow gateway: give -http or -stdio, not both"},
		{[]string{"gateway", "-command", "go version", "-stateless", "-stdio"}, exitUsage, "hookflow gateway: -stateless is for streamable HTTP (-http), not -stdio"},
		{[]string{"gateway", "-command", "go version", "-drain", "5s", "-stdio"}, exitUsage,
			"hookflow gateway: -drain is for streamable HTTP (-http): over stdio there is nothing to drain"},
		{[]string{"gateway", "-config", stdioOnly, "-stateless", "-check"}, exitUsage,
			"hookflow gateway: -stateless is for streamable HTTP, and the configuration serves stdio: give -http addr too"},
		{[]string{"gateway", "-config", stdioOnly, "-drain", "5s", "-check"}, exitUsage,
			"hookflow gateway: -drain is for streamable HTTP, and the configuration serves stdio (nothing to drain): give -http addr too"},
		{[]string{"gateway", "-config", stdioOnly, "-stateless", "-drain", "5s", "-http", "127.0.0.1:0", "-check"}, exitOK, stdioOnly + ": ok"},
		{[]string{"gateway", "-config", httpOnly, "-stdio", "-check"}, exitOK, httpOnly + ": ok"},
		{[]string{"gateway", "-config", filepath.Join(dir, "nonexistent.yaml")}, exitFailed,
			"hookflow gateway: open " + filepath.Join(dir, "nonexistent.yaml") + ": no such file or directory"},
		{[]string{"gateway", "-config", good, "-http", "127.0.0.1:9090", "-health-addr", "127.0.0.1:9090", "-check"}, exitFailed,
			"serve.health_addr is serve.http's address 127.0.0.1:9090: leave it out to serve health on the MCP listener"},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, stdio{out: &out, err: &errb})
		if code != tc.code || !strings.Contains(out.String()+errb.String(), tc.out) {
			t.Errorf("%q: exit %d, output:\n%s%s\nwant exit %d and %q", tc.args, code, out.String(), errb.String(), tc.code, tc.out)
		}
	}
	if n := tokenRequests.Load(); n != 0 {
		t.Errorf("-check made %d token requests, want none", n)
	}
	if cfg, err := host.ReadConfig(good, host.LoadOptions{Plugins: gatewayPlugins()}); err != nil || cfg.Upstreams[0].Dir != filepath.Join(dir, "sub") {
		t.Errorf("dir = %q, %v; want it relative to the file", cfg.Upstreams[0].Dir, err)
	}
}

// TestGatewayCheckHost checks what -check finds on the machine: missing
// programs and directories and unwritable audit files, at file:line:col
// and together with the other errors, without creating or writing the
// audit files.
func TestGatewayCheckHost(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o700); err != nil {
		t.Fatal(err)
	}
	write("bin/up", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(dir, "bin/up"), 0o700); err != nil {
		t.Fatal(err)
	}
	existing := write("existing.log", "kept\n")
	for _, tc := range []struct {
		name, yaml string
		code       int
		want       []string
	}{
		{"every error at once", `upstreams:
  - name: d
    command: [no-such-program-xyz, -v]
  - name: j
    command: [go, version]
    dir: /no/such/dir
  - name: k
    command: [./up]
    dir: nowhere
  - name: e
    command: [go]
    env: [FOO]
    timeout: soon
plugins:
  audit: {file: /nonexistent/dir/audit.log}
`, exitFailed, []string{
			`:3:15: upstream "d": program "no-such-program-xyz": executable file not found in $PATH`,
			`:6:10: upstream "j": directory /no/such/dir does not exist`,
			`:9:10: upstream "k": directory ` + filepath.Join(dir, "nowhere") + ` does not exist`,
			`:12:11: want an environment entry such as KEY=value, got "FOO"`,
			`:13:14: want a duration such as 30s or 1m, got "soon"`,
			`:15:17: audit file: directory /nonexistent/dir does not exist`,
		}},
		{"a program relative to dir", "upstreams:\n  - {name: a, command: [./up], dir: bin}\n", exitOK, []string{": ok (1 upstreams)"}},
		{"a program missing from dir", "upstreams:\n  - {name: a, command: [./down], dir: bin}\n", exitFailed,
			[]string{`:2:25: upstream "a": program "./down" (` + filepath.Join(dir, "bin/down") + `): no such file or directory`}},
		{"a program that is not executable", "upstreams:\n  - {name: a, command: [./existing.log], dir: .}\n", exitFailed,
			[]string{`:2:25: upstream "a": program "./existing.log" (` + existing + `): permission denied`}},
		{"dir is a file", "upstreams:\n  - {name: a, command: [go], dir: existing.log}\n", exitFailed,
			[]string{`:2:35: upstream "a": ` + existing + ` is not a directory`}},
		{"audit file is a directory", "upstreams:\n  - {name: a, command: [go]}\nplugins:\n  audit: {file: " + dir + "}\n", exitFailed,
			[]string{`:4:17: audit file: ` + dir + ` is a directory`}},
		{"audit file in an app", "upstreams:\n  - {name: a, command: [go], app: x}\napps:\n  - name: x\n    plugins:\n      audit:\n        file: " + dir + "/no/a.log\n", exitFailed,
			[]string{`:7:15: audit file: directory ` + dir + `/no does not exist`}},
		{"intercept hosts unreachable, not connected", "upstreams:\n  - {name: a, command: [go]}\nplugins:\n  intercept:\n    servers:\n      - {name: g, url: 'http://127.0.0.1:9/mcp'}\n      - {name: s, command: [./up], dir: bin}\n",
			exitOK, []string{": ok (1 upstreams)"}},
		{"intercept host programs", "upstreams:\n  - {name: a, command: [go], app: x}\nplugins:\n  intercept:\n    servers: [{name: g, command: [no-such-interceptors-xyz]}]\napps:\n  - name: x\n    plugins:\n      intercept:\n        servers: [{name: s, command: [./down], dir: nowhere}]\n",
			exitFailed, []string{
				`:5:35: intercept servers[0].command[0]: program "no-such-interceptors-xyz": executable file not found in $PATH`,
				`:10:53: intercept servers[0].dir: directory ` + filepath.Join(dir, "nowhere") + ` does not exist`,
			}},
		{"intercept host program missing from dir", "upstreams:\n  - {name: a, command: [go]}\nplugins:\n  intercept: {servers: [{name: s, command: [./down], dir: bin}]}\n", exitFailed,
			[]string{`:4:45: intercept servers[0].command[0]: program "./down" (` + filepath.Join(dir, "bin/down") + `): no such file or directory`}},
		{"audit file to create", "upstreams:\n  - {name: a, command: [go]}\nplugins:\n  audit: {file: " + dir + "/new.log}\n", exitOK, []string{": ok"}},
		{"audit file that exists", "upstreams:\n  - {name: a, command: [go]}\nplugins:\n  audit: {file: " + existing + ", flows: [tools:call-tool]}\n", exitOK, []string{": ok"}},
		{"audit setting its plugin refuses", "upstreams:\n  - {name: a, command: [go]}\nplugins:\n  audit: {file: " + existing + ", redact: [user.]}\n", exitFailed,
			[]string{`:4:` + strconv.Itoa(len("  audit: {file: "+existing+", redact: [")+1) + `: audit redact[0]: "user." has an empty field name`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := write("g.yaml", tc.yaml)
			var out, errb bytes.Buffer
			code := run([]string{"gateway", "-config", cfg, "-check"}, stdio{out: &out, err: &errb})
			got := out.String() + errb.String()
			if code != tc.code {
				t.Errorf("exit %d, want %d; output:\n%s", code, tc.code, got)
			}
			last := -1
			for _, w := range tc.want {
				switch i := strings.Index(got, w); {
				case i < 0:
					t.Errorf("output:\n%s\nwant it to contain %q", got, w)
				case i < last:
					t.Errorf("output:\n%s\nwant %q after the error before it, in the order of the file", got, w)
				default:
					last = i
				}
			}
			if strings.Contains(got, "hookflow: invalid") {
				t.Errorf("output:\n%s\nsays hookflow: invalid", got)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "new.log")); !os.IsNotExist(err) {
		t.Errorf("-check created the audit file: %v", err)
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != "kept\n" {
		t.Errorf("-check changed the audit file: %q, %v", b, err)
	}
}

// TestGatewayCheckUnwritable checks that -check reports an audit file it
// could not append to; root can write anything.
func TestGatewayCheckUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can write to any file")
	}
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, "locked.log")
	if err := os.WriteFile(locked, nil, 0o400); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		locked:                     `:4:17: audit file: ` + locked + ` is not writable`,
		filepath.Join(ro, "a.log"): `:4:17: audit file: directory ` + ro + ` is not writable: a.log cannot be created`,
	} {
		cfg := filepath.Join(dir, "g.yaml")
		if err := os.WriteFile(cfg, []byte("upstreams:\n  - {name: a, command: [go]}\nplugins:\n  audit: {file: "+file+"}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := run([]string{"gateway", "-config", cfg, "-check"}, stdio{out: &out, err: &errb}); code != exitFailed || !strings.Contains(errb.String(), want) {
			t.Errorf("exit %d, output:\n%s%s\nwant exit 1 and %q", code, out.String(), errb.String(), want)
		}
	}
}

// TestPrintError checks how the command prints a failure: a line for
// each joined error, and a plugin's configuration error without
// hookflow's "hookflow: invalid: ", however deep.
func TestPrintError(t *testing.T) {
	plugin := func(err error) error {
		return &flows.Error{Code: flows.CodeInvalid, Msg: `plugin "gateway" (gw/plugin:gateway)`, Err: err}
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errors.New("listen tcp: address in use"), "hookflow gateway: listen tcp: address in use\n"},
		{plugin(&flows.Error{Code: flows.CodeInvalid, Msg: `gateway: resource "up://r" clashes`}),
			"hookflow gateway: plugin \"gateway\" (gw/plugin:gateway): gateway: resource \"up://r\" clashes\n"},
		{errors.Join(plugin(errors.New("a")), plugin(errors.New("b"))),
			"hookflow gateway: plugin \"gateway\" (gw/plugin:gateway): a\nhookflow gateway: plugin \"gateway\" (gw/plugin:gateway): b\n"},
		{&flows.Error{Code: flows.CodeAborted, Flow: flows.ToolsCallTool, Hook: "h", Err: errors.New("no")},
			"hookflow gateway: hookflow: tools:call-tool beforeValidation: hook \"h\" aborted: no\n"},
	} {
		var b bytes.Buffer
		printError(&b, tc.err)
		if b.String() != tc.want {
			t.Errorf("printError(%v) printed:\n%s\nwant:\n%s", tc.err, b.String(), tc.want)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string]string{
		"a b  c":         "a|b|c",
		`go run "./x y"`: "go|run|./x y",
		`a '' b`:         "a||b",
	} {
		got, err := splitCommand(in)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestOneUpstreamName(t *testing.T) {
	u, err := oneUpstream("tools", "", "http://127.0.0.1:1/mcp", "", "t_")
	if err != nil || u.Name != "tools" || u.URL != "http://127.0.0.1:1/mcp" || u.Prefix != "t_" {
		t.Errorf("oneUpstream = %+v, %v", u, err)
	}
}
