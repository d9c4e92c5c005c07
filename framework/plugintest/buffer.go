package plugintest

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer is a bytes.Buffer that is safe for concurrent use: a sink for
// the logs and output that a plugin's goroutines (or a child process's
// pipe) write while the test reads them. The zero value is empty and ready
// to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Lines returns the complete lines written so far, without their
// newlines: a last line still being written is left out.
func (b *Buffer) Lines() []string {
	s := b.String()
	s = s[:strings.LastIndexByte(s, '\n')+1]
	var out []string
	for line := range strings.Lines(s) {
		out = append(out, strings.TrimSuffix(line, "\n"))
	}
	return out
}
