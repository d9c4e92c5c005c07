package command

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
)

// askTTL bounds how long an approval (or a pending question) carried in a
// multi round-trip's request state stays valid.
const askTTL = 10 * time.Minute

// multiRoundTrip is the first protocol version whose clients answer
// server questions with input-required results (SEP-2322) instead of
// server-to-client requests during a request.
const multiRoundTrip = "2026-07-28"

// approvalsKey holds the approvals of this run's asking hooks, carried
// into the request state of a later question.
var approvalsKey = flows.NewKey[[]string]("command.approvals")

// ask asks the user to approve the call, for a hook that answered "ask".
// It returns asked = true when the question went out as an input-required
// result and the call will come back with the answer; otherwise a nil
// error is a yes, and an error is the denial the client reads. Without a
// client that can elicit, the call is denied.
//
// Clients of protocol versions before 2026-07-28 are asked with an
// elicitation request during the call. Later clients get an
// input-required result and call again with the answer; the request state
// that comes back carries the question and earlier approvals, each signed
// for this hook and these arguments and valid for ten minutes, so that a
// client cannot answer a question it was not asked.
func (h *hook) ask(c *flows.Context, reason string) (asked bool, err error) {
	reason = cmpOr(reason, fmt.Sprintf("command hook %q asks for your approval", h.Name))
	caps := c.Request().ClientCapabilities
	if c.Session() == nil || caps == nil || caps.Elicitation == nil {
		return false, fmt.Errorf("%s (command hook %q asks for the user's approval, and this client cannot ask: it does not support elicitation; denied)", reason, h.Name)
	}
	args := string(c.Arguments())
	if len(args) > 2000 {
		args = args[:2000] + "…"
	}
	params := &mcp.ElicitParams{
		Message:         fmt.Sprintf("%s\n\nTool: %s\nArguments: %s\n\nAllow this call?", reason, c.Entity().Name, args),
		RequestedSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}},
	}
	if c.Request().ProtocolVersion < multiRoundTrip {
		res, err := c.Session().Elicit(c.Context(), params)
		if err != nil {
			return false, fmt.Errorf("%s (command hook %q asked for the user's approval, and asking failed: %v; denied)", reason, h.Name, err)
		}
		return false, answered(reason, res.Action)
	}
	now := time.Now()
	req, _ := c.Request().SDK.(*mcp.CallToolRequest)
	var state string
	var resp mcp.InputResponse
	if req != nil && req.Params != nil {
		state, resp = req.Params.RequestState, req.Params.InputResponses[h.inputKey()]
	}
	approval := h.p.sign("a", h.id, c.Arguments(), now.Add(askTTL))
	if resp != nil {
		if !h.p.carries(state, "q", h.id, c.Arguments(), now) {
			return false, fmt.Errorf("%s (the answer to command hook %q does not match a question it asked for these arguments; denied)", reason, h.Name)
		}
		er, ok := resp.(*mcp.ElicitResult)
		if !ok {
			return false, fmt.Errorf("%s (the answer to command hook %q is not an elicitation result; denied)", reason, h.Name)
		}
		if err := answered(reason, er.Action); err != nil {
			return false, err
		}
		approvalsKey.Set(c, append(approvalsOf(c), approval))
		return false, nil
	}
	if h.p.carries(state, "a", h.id, c.Arguments(), now) {
		approvalsKey.Set(c, append(approvalsOf(c), approval))
		return false, nil
	}
	entries := append(approvalsOf(c), h.p.sign("q", h.id, c.Arguments(), now.Add(askTTL)))
	c.Respond(&mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{h.inputKey(): params},
		RequestState:  strings.Join(entries, ","),
	})
	return true, nil
}

func approvalsOf(c *flows.Context) []string {
	a, _ := approvalsKey.Get(c)
	return a
}

func answered(reason, action string) error {
	if action == "accept" {
		return nil
	}
	return fmt.Errorf("%s (the user was asked and answered %q; denied)", reason, action)
}

// inputKey names the hook's question in an input-required result.
func (h *hook) inputKey() string { return "hookflow.command." + h.Name }

// sign returns a request-state entry of the given kind ("q" a pending
// question, "a" an approval) for hook id and args, valid until expiry:
// kind.expiry.mac.
func (p *Plugin) sign(kind, id string, args []byte, expiry time.Time) string {
	exp := strconv.FormatInt(expiry.Unix(), 10)
	return kind + "." + exp + "." + p.mac(kind, exp, id, args)
}

func (p *Plugin) mac(kind, exp, id string, args []byte) string {
	sum := sha256.Sum256(args)
	m := hmac.New(sha256.New, p.secret[:])
	m.Write([]byte(kind + "\x00" + exp + "\x00" + id + "\x00"))
	m.Write(sum[:])
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// carries reports whether state holds a valid, unexpired entry of kind for
// hook id and args.
func (p *Plugin) carries(state, kind, id string, args []byte, now time.Time) bool {
	for _, e := range strings.Split(state, ",") {
		k, rest, ok := strings.Cut(e, ".")
		if !ok || k != kind {
			continue
		}
		exp, mac, ok := strings.Cut(rest, ".")
		if !ok {
			continue
		}
		t, err := strconv.ParseInt(exp, 10, 64)
		if err != nil || now.Unix() > t {
			continue
		}
		if hmac.Equal([]byte(mac), []byte(p.mac(kind, exp, id, args))) {
			return true
		}
	}
	return false
}
