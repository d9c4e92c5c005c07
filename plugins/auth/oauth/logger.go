package oauth

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// laterLogger is a log handler whose destination is set after the
// resource server is built: the plugin of a configuration file logs to
// its server's logger, which it knows when it is attached. Until then it
// discards, and so does a handler derived from it (WithAttrs, WithGroup)
// before then; the resource server derives none.
type laterLogger struct {
	to atomic.Pointer[slog.Logger]
}

// set makes l log to logger.
func (l *laterLogger) set(logger *slog.Logger) { l.to.Store(logger) }

func (l *laterLogger) current() slog.Handler {
	if to := l.to.Load(); to != nil {
		return to.Handler()
	}
	return slog.DiscardHandler
}

func (l *laterLogger) Enabled(ctx context.Context, level slog.Level) bool {
	return l.current().Enabled(ctx, level)
}

func (l *laterLogger) Handle(ctx context.Context, r slog.Record) error {
	return l.current().Handle(ctx, r)
}

func (l *laterLogger) WithAttrs(attrs []slog.Attr) slog.Handler {
	return l.current().WithAttrs(attrs)
}

func (l *laterLogger) WithGroup(name string) slog.Handler { return l.current().WithGroup(name) }
