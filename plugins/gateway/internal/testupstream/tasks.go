package main

import (
	"bytes"
	"io"
)

// taskWriter writes the server's messages to w, with the tool named
// research marked as one that must be called as a task
// (execution.taskSupport "required"), which the go-sdk's Tool cannot say.
type taskWriter struct{ w io.WriteCloser }

func (t taskWriter) Write(p []byte) (int, error) {
	out := bytes.ReplaceAll(p, []byte(`"name":"research"`), []byte(`"execution":{"taskSupport":"required"},"name":"research"`))
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t taskWriter) Close() error { return t.w.Close() }
