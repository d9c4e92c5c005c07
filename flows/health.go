package flows

import "time"

// HealthReport is the state of the upstream servers a plugin forwards to
// (the gateway's), for another plugin to show (the console's upstreams
// page) without depending on the first: an overall Status and an entry
// per upstream, in configuration order, with no secret in it.
type HealthReport struct {
	// Status is "up" when every upstream is up, "degraded" when some are,
	// "down" when none is, "starting" before the plugin is attached and
	// "closed" once it is closed.
	Status    string
	Upstreams []UpstreamHealth
}

// UpstreamHealth is one upstream's entry in a [HealthReport].
type UpstreamHealth struct {
	Name string
	// Endpoint is the path of the virtual endpoint that mounts it; ""
	// for the server's own upstreams.
	Endpoint string
	// State is "connecting", "up", "down" or "closed"; Since is when the
	// upstream entered it.
	State string
	Since time.Time
	// Error is why the upstream is down, with its secrets masked; "" when
	// it is up.
	Error string
	// Reconnects counts its successful reconnections; Dropped the
	// notifications dropped for clients that read them too slowly.
	Reconnects int
	Dropped    uint64
}

// HealthReporter is what reports the health of upstream servers in
// process: the gateway plugin's gateways are one, the console plugin
// shows one.
type HealthReporter interface {
	HealthReport() HealthReport
}
