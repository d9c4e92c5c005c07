package framework

import (
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// On protocol 2026-07-28 every request carries the client's info and
// capabilities in its _meta, as generic JSON values, and the SDK's
// ServerRequest.ClientInfo and ClientCapabilities decode them on every call
// by marshalling and unmarshalling them (with a 32 KiB decoder buffer each).
// That was the largest cost hookflow added to a tools/call. A client sends
// the same values on every request, so hookflow remembers the last decoding
// and reuses it when the raw values are equal; the cache is keyed by content
// only, so it is correct for any mix of clients and sessions (a different
// client costs one decoding, as before).
var (
	clientInfoCache metaCache[*mcp.Implementation]
	clientCapsCache metaCache[*mcp.ClientCapabilities]
)

// metaCache is a one-entry cache of the decoding of one _meta value.
type metaCache[T any] struct {
	last atomic.Pointer[metaEntry[T]]
}

type metaEntry[T any] struct {
	raw map[string]any // a private deep copy of the raw value
	val T
}

// get returns the decoding of meta[key]: decode's result, or the cached one
// when meta[key] equals the value it was decoded from. decode is the SDK
// accessor, which also covers a missing key (older protocols read the
// session's initialize parameters) and values that are already typed.
func (mc *metaCache[T]) get(meta map[string]any, key string, decode func() T) T {
	raw, _ := meta[key].(map[string]any)
	if raw == nil {
		return decode()
	}
	if e := mc.last.Load(); e != nil && jsonEqual(e.raw, raw) {
		return e.val
	}
	v := decode()
	if cp, ok := jsonClone(raw).(map[string]any); ok {
		mc.last.Store(&metaEntry[T]{raw: cp, val: v})
	}
	return v
}

// jsonEqual reports whether two decoded JSON values are equal. Values of
// other types are never equal, so they are never served from the cache.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !jsonEqual(va, vb) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case string:
		b, ok := b.(string)
		return ok && a == b
	case float64:
		b, ok := b.(float64)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case nil:
		return b == nil
	}
	return false
}

// jsonClone deep-copies a decoded JSON value; it returns nil for a value
// that holds anything else (which then is not cached).
func jsonClone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			c := jsonClone(x)
			if c == nil && x != nil {
				return nil
			}
			m[k] = c
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			c := jsonClone(x)
			if c == nil && x != nil {
				return nil
			}
			s[i] = c
		}
		return s
	case string, float64, bool:
		return v
	}
	return nil
}
