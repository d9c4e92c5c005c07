package gateway

import (
	"log/slog"

	ups "github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// startOptional is Attach's answer to an optional upstream that could not
// be reached (err): the gateway starts without it, the upstream down with
// err as its cause in [Health], and run connects it in the background.
func (u *upstream) startOptional(err error) {
	u.log.Warn("gateway: an optional upstream is unavailable at start; serving without it, connecting it in the background",
		slog.Any("err", err), slog.Duration("retry_in", u.cfg.MinBackoff))
}

// run connects the upstream when it is not connected yet (an optional
// upstream unavailable at Start), with backoff, mounting its entities once
// it answers; then it watches it until the gateway closes. Meanwhile
// reapIdle closes the idle upstream sessions of client sessions.
func (u *upstream) run() {
	ups.Go(u.log, "closing idle sessions of upstream "+u.cfg.Name, u.reapIdle)
	u.mu.Lock()
	connected := u.main != nil
	u.mu.Unlock()
	if !connected && !u.reconnect() {
		return
	}
	u.keepWatching()
}
