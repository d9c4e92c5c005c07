package flows

// Key is a typed key into a run's state, shared by all hooks of one run.
// Create keys once (for example in a plugin's constructor) with [NewKey]; two
// keys are the same key only if one is a copy of the other, whatever their
// names.
//
//	var started = flows.NewKey[time.Time]("audit.started")
//	started.Set(c, time.Now())
//	t, ok := started.Get(c)
type Key[T any] struct {
	id   *keyID
	name string
}

type keyID struct{ name string }

// NewKey returns a new key for values of type T. The name appears in
// [Key.String] only; identity comes from the key value.
func NewKey[T any](name string) Key[T] {
	return Key[T]{id: &keyID{name}, name: name}
}

// String returns the key's name.
func (k Key[T]) String() string { return k.name }

// Get returns the value stored under k in c's run state, and whether there was one.
func (k Key[T]) Get(c *Context) (T, bool) {
	for _, e := range c.state {
		if e.key == k.id {
			v, ok := e.val.(T)
			return v, ok
		}
	}
	var zero T
	return zero, false
}

// Set stores v under k in c's run state, replacing any previous value. The
// state is allocated on the first Set of a run.
func (k Key[T]) Set(c *Context, v T) {
	for i := range c.state {
		if c.state[i].key == k.id {
			c.state[i].val = v
			return
		}
	}
	c.state = append(c.state, stateEntry{key: k.id, val: v})
}

// Delete removes k from c's run state.
func (k Key[T]) Delete(c *Context) {
	for i := range c.state {
		if c.state[i].key == k.id {
			c.state = append(c.state[:i], c.state[i+1:]...)
			return
		}
	}
}

type stateEntry struct {
	key *keyID
	val any
}
