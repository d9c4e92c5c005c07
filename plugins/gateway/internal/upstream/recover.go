package upstream

import (
	"log/slog"
	"runtime/debug"
)

// Go runs fn on a goroutine of its own. A panic in fn is recovered and
// logged at error level with its stack, naming what: a bug met with one
// upstream's answers must not take down the gateway's process, and every
// client session with it.
func Go(log *slog.Logger, what string, fn func()) {
	go func() {
		defer Recovered(log, what)
		fn()
	}()
}

// Recovered, deferred, recovers a panic and logs it as [Go] says; log nil
// is slog's default logger.
func Recovered(log *slog.Logger, what string) {
	if v := recover(); v != nil {
		logPanic(log, what, v)
	}
}

// logPanic logs the panic v, recovered in what, as [Go] does.
func logPanic(log *slog.Logger, what string, v any) {
	if log == nil {
		log = slog.Default()
	}
	log.Error("gateway: recovered from a panic; please report it", slog.String("in", what),
		slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
}
