package gateway

import "fmt"

// ClientTransport selects the client side of the streamable HTTP
// transport a URL upstream is reached on: [ClientTransportHookflow] (the
// default) or [ClientTransportSDK]. In YAML it is http_transport:
// hookflow or sdk.
type ClientTransport uint8

const (
	// ClientTransportDefault is the zero value: ClientTransportHookflow.
	ClientTransportDefault ClientTransport = iota
	// ClientTransportSDK is the SDK's mcp.StreamableClientTransport.
	ClientTransportSDK
	// ClientTransportHookflow is hookflow's client transport, which reads
	// and decodes each message once.
	ClientTransportHookflow
)

// String returns "default", "sdk" or "hookflow".
func (t ClientTransport) String() string {
	switch t {
	case ClientTransportSDK:
		return "sdk"
	case ClientTransportHookflow:
		return "hookflow"
	}
	return "default"
}

// MarshalText returns the name String gives.
func (t ClientTransport) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads "sdk", "hookflow" or "default" (or empty).
func (t *ClientTransport) UnmarshalText(b []byte) error {
	switch string(b) {
	case "", "default":
		*t = ClientTransportDefault
	case "sdk":
		*t = ClientTransportSDK
	case "hookflow":
		*t = ClientTransportHookflow
	default:
		return fmt.Errorf("unknown HTTP transport %q: sdk or hookflow", b)
	}
	return nil
}
