package declared

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CapabilityKey is the key of the hooks capability in the experimental
// capabilities of servers and clients: SEP-2282's prototype path, since
// the SDK's capability types have no field for a top-level "hooks".
const CapabilityKey = "hooks"

// Capability is the value of a server's experimental.hooks: the
// declarations it sends to one client.
type Capability struct {
	Declarations []Declaration `json:"declarations"`
}

// ClientCapability is the value of a client's experimental.hooks: the
// events at which it fires declarations.
type ClientCapability struct {
	SupportedEvents []Event `json:"supported_events"`
}

// DeclareSupport returns caps (a new value when caps is nil) with
// experimental.hooks saying that the client supports events. Pass it as
// mcp.ClientOptions.Capabilities; note that setting those capabilities
// replaces the SDK's default ones (roots with listChanged), so a nil caps
// starts from that default.
func DeclareSupport(caps *mcp.ClientCapabilities, events ...Event) *mcp.ClientCapabilities {
	if caps == nil {
		caps = &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{ListChanged: true}}
	}
	if caps.Experimental == nil {
		caps.Experimental = map[string]any{}
	}
	caps.Experimental[CapabilityKey] = &ClientCapability{SupportedEvents: append([]Event{}, events...)}
	return caps
}

// SupportedEvents reads the events a client supports from its
// capabilities. declared is false when the client has no experimental.hooks
// (the SEP: send it no declarations). A hooks capability that is not an
// object, or has no supported_events list (which the SEP's
// ClientHooksCapability requires), supports no event: events is empty and
// declared true. Names this package does not know (a newer client's) are
// left out.
func SupportedEvents(caps *mcp.ClientCapabilities) (events []Event, declared bool) {
	events, declared, _ = supportedEvents(caps)
	return events, declared
}

// supportedEvents is [SupportedEvents]; malformed says why a client's
// hooks capability is unusable, "" when it is absent or well formed.
func supportedEvents(caps *mcp.ClientCapabilities) (events []Event, declared bool, malformed string) {
	if caps == nil || caps.Experimental == nil {
		return nil, false, ""
	}
	v, ok := caps.Experimental[CapabilityKey]
	if !ok || v == nil {
		return nil, false, ""
	}
	var wire struct {
		SupportedEvents *[]string `json:"supported_events"`
	}
	if !decodeValue(v, &wire) {
		return nil, true, fmt.Sprintf("experimental.%s is not an object with a supported_events list of event names", CapabilityKey)
	}
	if wire.SupportedEvents == nil {
		return nil, true, fmt.Sprintf("experimental.%s has no supported_events, which the SEP requires", CapabilityKey)
	}
	for _, name := range *wire.SupportedEvents {
		if e, err := ParseEvent(name); err == nil {
			events = append(events, e)
		}
	}
	return events, true, ""
}

// ServerDeclarations reads the declarations a server sent in its
// capabilities (the initialize or discover result). ok is false when there
// is no experimental.hooks. decls and errs have one entry per declaration
// of the wire list, in its order: errs[i] says why decls[i] is invalid (a
// client ignores it; decls[i] holds what could be decoded), nil when it is
// valid.
func ServerDeclarations(caps *mcp.ServerCapabilities) (decls []Declaration, errs []error, ok bool) {
	if caps == nil || caps.Experimental == nil {
		return nil, nil, false
	}
	v, ok := caps.Experimental[CapabilityKey]
	if !ok || v == nil {
		return nil, nil, false
	}
	var wire struct {
		Declarations []json.RawMessage `json:"declarations"`
	}
	if !decodeValue(v, &wire) {
		return nil, []error{fmt.Errorf("experimental.%s is not an object with declarations", CapabilityKey)}, true
	}
	decls = make([]Declaration, len(wire.Declarations))
	errs = make([]error, len(wire.Declarations))
	for i, raw := range wire.Declarations {
		var d Declaration
		err := json.Unmarshal(raw, &d)
		if err == nil {
			err = d.Validate()
		}
		if err != nil {
			errs[i] = fmt.Errorf("declaration %d: %w", i, err)
		}
		decls[i] = d
	}
	return decls, errs, true
}

// decodeValue decodes a capability value, which is a generic JSON value
// after a trip over the wire and may be a typed value in-process, into out.
func decodeValue(v any, out any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return json.Unmarshal(b, out) == nil
}
