package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/priority"
	"github.com/hookflow/hookflow/stages"
)

// Config configures the cache plugin. The zero value caches for a minute,
// up to 1024 results in memory, per principal.
type Config struct {
	// Name is the plugin's name (default "cache").
	Name string `yaml:"name"`
	// TTL is how long a result is served from the cache (default 1 minute).
	TTL time.Duration `yaml:"ttl"`
	// MaxEntries bounds the default in-memory backend (default 1024,
	// least recently used evicted first). It must be 0 when Backend is set.
	MaxEntries int `yaml:"max_entries"`
	// Backend stores the results; nil uses [NewMemory] with MaxEntries and
	// Now.
	Backend Backend `yaml:"-"`
	// SharedAcrossPrincipals lets callers with different principals (the
	// verified token's user ID) share results (off by default). By default
	// the principal is part of the key, so a read-only tool whose answer
	// depends on the caller ("my files") never serves one user's result to
	// another. Unauthenticated calls all have the empty principal.
	SharedAcrossPrincipals bool `yaml:"shared_across_principals"`
	// Now is the clock of the default backend; nil uses time.Now.
	Now func() time.Time `yaml:"-"`
}

// Validate checks the configuration. Each error is a *flows.Error whose
// Field is the field's path in a configuration file's spelling ("ttl").
func (c Config) Validate() error {
	var errs []error
	invalid := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if c.TTL < 0 {
		invalid("ttl", "must not be negative, got %v", c.TTL)
	}
	switch {
	case c.MaxEntries < 0:
		invalid("max_entries", "must not be negative, got %d", c.MaxEntries)
	case c.MaxEntries != 0 && c.Backend != nil:
		invalid("max_entries", "bounds the default backend only; bound Config.Backend itself")
	}
	return errors.Join(errs...)
}

// The defaults of [Config].
const (
	DefaultTTL        = time.Minute
	DefaultMaxEntries = 1024
)

// Stats counts what the cache did.
type Stats struct {
	// Hits are calls answered from the cache.
	Hits uint64
	// Misses are calls of cacheable tools that executed.
	Misses uint64
	// Stores are results put in the cache.
	Stores uint64
	// Errors are backend errors (each treated as a miss or a skipped store)
	// and results that could not be cached faithfully.
	Errors uint64
}

// Plugin is the cache plugin; create it with [New].
//
// It answers tools/call for tools annotated read-only or idempotent
// (mcp.ToolAnnotations ReadOnlyHint or IdempotentHint) from a cache keyed by
// the tool's name and the canonical JSON of its validated arguments (keys
// sorted, no insignificant whitespace), and the principal unless
// [Config.SharedAcrossPrincipals]. A hit answers in beforeExecute with
// Respond, so execute is skipped and afterExecute hooks run with the cached
// output; the audit plugin reports it as answered early. A miss stores the
// tool's output in afterExecute, only when the call succeeded (no error, no
// isError result).
//
// Cached outputs are stored as JSON bytes and decoded into a fresh value of
// the tool's output type for every hit: no two calls ever share a value, so
// hooks may modify their output freely. An output that does not survive a
// JSON round trip unchanged is not cached.
type Plugin struct {
	cfg     Config
	backend Backend
	pending flows.Key[string] // the key to store the run's result under

	mu       sync.Mutex
	checked  bool
	checkErr error

	types sync.Map // type ID → reflect.Type of cached outputs
	// infos caches what encode and decode need of each output type.
	infos sync.Map // reflect.Type → *typeInfo

	hits, misses, stores, errs atomic.Uint64
}

// New returns a cache plugin configured by cfg. The configuration is
// checked when the plugin is attached.
func New(cfg Config) *Plugin {
	return &Plugin{cfg: cfg, pending: flows.NewKey[string]("cache.key")}
}

// Name returns Config.Name, or "cache".
func (p *Plugin) Name() string {
	if p.cfg.Name != "" {
		return p.cfg.Name
	}
	return "cache"
}

// Stats returns the plugin's counters.
func (p *Plugin) Stats() Stats {
	return Stats{Hits: p.hits.Load(), Misses: p.misses.Load(), Stores: p.stores.Load(), Errors: p.errs.Load()}
}

// Attach checks the configuration and registers the plugin's hooks.
func (p *Plugin) Attach(pc *framework.PluginContext) error {
	if err := p.check(); err != nil {
		return err
	}
	return pc.Hook(
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeExecute, Priority: priority.Cache, Name: "lookup", Fn: p.lookup},
		// First in afterExecute: store what execute produced, before other
		// hooks rewrite it (they rewrite cached answers the same way).
		flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.AfterExecute, Priority: priority.CacheStore, Name: "store",
			Fn: p.store},
	)
}

func (p *Plugin) check() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.checked {
		p.checked = true
		p.checkErr = p.validate()
	}
	return p.checkErr
}

func (p *Plugin) validate() error {
	c := p.cfg
	if err := c.Validate(); err != nil {
		return err
	}
	if c.TTL == 0 {
		c.TTL = DefaultTTL
	}
	if c.MaxEntries == 0 {
		c.MaxEntries = DefaultMaxEntries
	}
	p.backend = c.Backend
	if p.backend == nil {
		p.backend = NewMemory(&MemoryOptions{MaxEntries: c.MaxEntries, Now: c.Now})
	}
	p.cfg = c
	return nil
}

// cacheable reports whether the run's tool is annotated read-only or
// idempotent.
func cacheable(e *flows.Entity) bool {
	if e == nil || e.Tool == nil || e.Tool.Annotations == nil {
		return false
	}
	a := e.Tool.Annotations
	return a.ReadOnlyHint || a.IdempotentHint
}

func (p *Plugin) lookup(c *flows.Context) error {
	e := c.Entity()
	if !cacheable(e) {
		return nil
	}
	key, ok := p.key(c, e.Name)
	if !ok {
		return nil
	}
	val, found, err := p.backend.Get(c.Context(), key)
	if err != nil {
		p.errs.Add(1)
	}
	if found {
		if out, ok := p.decode(val, e.Out); ok {
			p.hits.Add(1)
			c.Respond(out)
			return nil
		}
		p.errs.Add(1)
	}
	p.misses.Add(1)
	p.pending.Set(c, key)
	return nil
}

// key returns the cache key of the call: the tool's name and a hash of the
// principal and the validated arguments in canonical JSON, which the run
// keeps ([flows.Context.Arguments]): nothing is encoded again.
func (p *Plugin) key(c *flows.Context, name string) (string, bool) {
	canon := c.Arguments()
	if canon == nil {
		return "", false
	}
	// One SHA-256 over "len:principal" and the arguments, hashed from a
	// buffer on the stack for usual sizes; the key is built in place.
	var in [512]byte
	b := in[:0]
	if !p.cfg.SharedAcrossPrincipals {
		principal := c.Request().Principal()
		b = strconv.AppendInt(b, int64(len(principal)), 10)
		b = append(append(b, ':'), principal...)
	}
	sum := sha256.Sum256(append(b, canon...))
	var out [128]byte
	k := append(append(out[:0], name...), ':')
	k = hex.AppendEncode(k, sum[:])
	return string(k), true
}

func (p *Plugin) store(c *flows.Context) error {
	key, ok := p.pending.Get(c)
	if !ok || c.Responded() { // not cacheable, a hit, or another hook answered
		return nil
	}
	out := c.Output()
	if out == nil {
		return nil
	}
	if res, ok := out.(*mcp.CallToolResult); ok && (res == nil || res.IsError) {
		return nil
	}
	val, ok := p.encode(out)
	if !ok {
		p.errs.Add(1)
		return nil
	}
	if err := p.backend.Set(c.Context(), key, val, p.cfg.TTL); err != nil {
		p.errs.Add(1)
		return nil
	}
	p.stores.Add(1)
	return nil
}

// encode returns the stored form of out: its type's ID, a newline, and its
// JSON. It refuses outputs that do not come back identical from a JSON round
// trip (a hit would then answer differently from the tool).
func (p *Plugin) encode(out any) ([]byte, bool) {
	t := reflect.TypeOf(out)
	b, err := json.Marshal(out)
	if err != nil {
		return nil, false
	}
	info := p.info(t)
	// Invalid UTF-8 in a string is encoded as an escaped U+FFFD, which
	// comes back unescaped: such values are checked like any other.
	if !info.plain || bytes.Contains(b, []byte(`\ufffd`)) {
		back, err := decodeAs(t, b)
		if err != nil {
			return nil, false
		}
		again, err := json.Marshal(back)
		if err != nil || !bytes.Equal(b, again) {
			return nil, false
		}
	}
	id := info.id
	val := make([]byte, 0, len(id)+1+len(b))
	val = append(append(append(val, id...), '\n'), b...)
	return val, true
}

// decode returns a fresh value from a stored form, or false when the type
// is unknown or the JSON does not decode. The tool's output type (out, from
// its entity) is known to every process, so a result another instance
// stored in a shared backend decodes here too; other types (a tool whose
// output type is an interface) only in the process that stored them.
func (p *Plugin) decode(val []byte, out reflect.Type) (any, bool) {
	id, data, ok := bytes.Cut(val, []byte{'\n'})
	if !ok {
		return nil, false
	}
	var t reflect.Type
	if out != nil && out.Kind() != reflect.Interface && p.info(out).id == string(id) {
		t = out
	} else if v, ok := p.types.Load(string(id)); ok {
		t = v.(reflect.Type)
	} else {
		return nil, false
	}
	v, err := decodeAs(t, data)
	return v, err == nil
}

// decodeAs unmarshals data into a new value of type t.
func decodeAs(t reflect.Type, data []byte) (any, error) {
	if t.Kind() == reflect.Pointer {
		v := reflect.New(t.Elem())
		if err := json.Unmarshal(data, v.Interface()); err != nil {
			return nil, err
		}
		return v.Interface(), nil
	}
	v := reflect.New(t)
	if err := json.Unmarshal(data, v.Interface()); err != nil {
		return nil, err
	}
	return v.Elem().Interface(), nil
}

// typeInfo is what the plugin remembers of an output type.
type typeInfo struct {
	// id is the type's [typeID].
	id string
	// plain: values of the type always come back identical from a JSON
	// round trip (but for invalid UTF-8), so that encode need not check.
	plain bool
}

// info returns (and remembers) t's typeInfo; the first time, it also
// registers t under its ID for decode.
func (p *Plugin) info(t reflect.Type) *typeInfo {
	if v, ok := p.infos.Load(t); ok {
		return v.(*typeInfo)
	}
	info := &typeInfo{id: typeID(t), plain: plainJSON(t, map[reflect.Type]bool{})}
	p.types.LoadOrStore(info.id, t)
	v, _ := p.infos.LoadOrStore(t, info)
	return v.(*typeInfo)
}

// plainJSON reports whether encoding/json encodes every value of t so
// that decoding the encoding into a new t and encoding that gives the
// same bytes: booleans, numbers, strings, and pointers, slices, arrays,
// string-keyed maps and structs of those. Interfaces (which decode as
// maps and float64s), types with their own JSON or text methods, and
// fields with the ",string" option are not plain; nor are types that
// refer to themselves (checked conservatively).
func plainJSON(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	defer delete(seen, t)
	for _, m := range []reflect.Type{jsonMarshaler, jsonUnmarshaler, textMarshaler, textUnmarshaler} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return false
		}
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return plainJSON(t.Elem(), seen)
	case reflect.Map:
		return t.Key().Kind() == reflect.String && plainJSON(t.Key(), seen) && plainJSON(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			if !f.IsExported() && f.Type.Kind() == reflect.Pointer {
				return false // encoding/json cannot decode into it
			}
			if tag := f.Tag.Get("json"); tag == "-" {
				continue
			} else if strings.Contains(tag, ",string") {
				return false
			}
			if !plainJSON(f.Type, seen) {
				return false
			}
		}
		return true
	}
	return false
}

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// typeID names t uniquely within a program.
func typeID(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		return "*" + typeID(t.Elem())
	}
	if t.Name() != "" && t.PkgPath() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	return t.String()
}

var _ framework.Plugin = (*Plugin)(nil)
