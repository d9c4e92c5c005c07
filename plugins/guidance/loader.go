package guidance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
)

// Loader resolves hooks' content: the inline Content, else the content
// file (File, default Tag + ".md") in the hook's FS, else the file File on
// disk. It caches what it read, successes and failures alike, by hook ID
// and file; Clear forgets it, so that edited or restored files are read
// again. The zero value is ready to use; a Loader is safe for concurrent
// use.
type Loader struct {
	mu    sync.Mutex
	cache map[loadKey]loaded
}

type loadKey struct{ id, file string }

type loaded struct {
	content string
	err     error
}

// LoadError is why a hook's content could not be loaded: the file is
// missing, unreadable or empty.
type LoadError struct {
	// Hook is the hook's ID.
	Hook string
	// File is the content file, as the hook names it.
	File string
	// Err is the cause (fs.ErrNotExist for a missing file).
	Err error
}

// Error says which hook's file failed and why.
func (e *LoadError) Error() string {
	return fmt.Sprintf("hook %s: content file %s: %v", e.Hook, e.File, e.Err)
}

// Reason is the error without the hook's ID, as notices write it.
func (e *LoadError) Reason() string { return fmt.Sprintf("content file %s: %v", e.File, e.Err) }

// Unwrap returns the cause.
func (e *LoadError) Unwrap() error { return e.Err }

// errEmpty is the cause of a content file that holds only white space.
var errEmpty = errors.New("the file is empty")

// Load returns h's content with surrounding white space trimmed, or a
// *LoadError. A nil Loader loads without caching.
func (l *Loader) Load(h *Hook) (string, error) {
	if h.Content != "" {
		return strings.TrimSpace(h.Content), nil
	}
	if l == nil {
		return read(h)
	}
	key := loadKey{h.ID(), h.file()}
	l.mu.Lock()
	v, ok := l.cache[key]
	l.mu.Unlock()
	if ok {
		return v.content, v.err
	}
	content, err := read(h)
	l.mu.Lock()
	if l.cache == nil {
		l.cache = map[loadKey]loaded{}
	}
	l.cache[key] = loaded{content, err}
	l.mu.Unlock()
	return content, err
}

func read(h *Hook) (string, error) {
	var b []byte
	var err error
	switch {
	case h.FS != nil:
		b, err = fs.ReadFile(h.FS, h.file())
	case h.File != "":
		b, err = os.ReadFile(h.File)
	default:
		err = errors.New("the hook has no content, FS or File")
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			// The path is in LoadError.File already.
			err = fmt.Errorf("%s: %w", pe.Op, pe.Err)
		}
		return "", &LoadError{Hook: h.ID(), File: h.file(), Err: err}
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", &LoadError{Hook: h.ID(), File: h.file(), Err: errEmpty}
	}
	return s, nil
}

// Clear forgets every cached content and failure.
func (l *Loader) Clear() {
	l.mu.Lock()
	l.cache = nil
	l.mu.Unlock()
}

// Len returns the number of cached loads.
func (l *Loader) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.cache)
}
