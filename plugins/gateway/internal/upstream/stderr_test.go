package upstream_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/hookflow/hookflow/plugins/gateway/internal/upstream"
)

// TestStderrLines writes a process's standard error to a Stderr in
// pieces, hostile ones among them (no newline for a megabyte, bytes that
// are not text): each line becomes one record, a long line records of
// at most MaxStderrLine bytes, blank lines none.
func TestStderrLines(t *testing.T) {
	long := strings.Repeat("x", 2*upstream.MaxStderrLine+10)
	flood := strings.Repeat("y", 1<<20)
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"lines", []string{"a\nb\n"}, []string{"a", "b"}},
		{"carriage returns", []string{"a\r\nb\r\n"}, []string{"a", "b"}},
		{"blank lines", []string{"\n\r\n\n"}, nil},
		{"incomplete last line", []string{"a\nb"}, []string{"a", "b"}},
		{"split writes", []string{"ab", "c\nd", "e\n"}, []string{"abc", "de"}},
		{"long line", []string{long + "\n"}, []string{long[:upstream.MaxStderrLine], long[:upstream.MaxStderrLine], long[:10]}},
		{"not text", []string{"\xff\x00z\n"}, []string{"\xff\x00z"}},
		{"flood", []string{flood}, slices.Repeat([]string{flood[:upstream.MaxStderrLine]}, len(flood)/upstream.MaxStderrLine)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			w := upstream.CaptureStderr(slog.New(rec), exec.Command("true"))
			for _, p := range tt.writes {
				if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
					t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(p))
				}
			}
			w.Flush()
			if got := rec.lines(); !slices.Equal(got, tt.want) {
				t.Errorf("lines = %.80q, want %.80q", got, tt.want)
			}
		})
	}
}

// TestStderrReadFrom copies a reader that returns a byte at a time, and
// one that fails: the lines are the same, and the failure is returned.
func TestStderrReadFrom(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		r       io.Reader
		want    []string
		wantErr error
	}{
		{"one byte at a time", iotest.OneByteReader(strings.NewReader("one\ntwo\n")), []string{"one", "two"}, nil},
		{"failing", io.MultiReader(strings.NewReader("one\n"), iotest.ErrReader(boom)), []string{"one"}, boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			w := upstream.CaptureStderr(slog.New(rec), exec.Command("true"))
			if _, err := w.ReadFrom(tt.r); !errors.Is(err, tt.wantErr) {
				t.Errorf("ReadFrom: %v, want %v", err, tt.wantErr)
			}
			if got := rec.lines(); !slices.Equal(got, tt.want) {
				t.Errorf("lines = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestStderrProcess runs a process that writes to its standard error and
// exits with status 3: its lines and its end are logged with its ID.
func TestStderrProcess(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	cmd := exec.Command(sh, "-c", "echo first >&2; printf 'last' >&2; exit 3")
	w := upstream.CaptureStderr(log, cmd)
	w.Ended(cmd.Run())
	pid := "pid=" + strconv.Itoa(cmd.Process.Pid)
	for _, want := range []string{
		`msg="gateway: upstream stderr" ` + pid + ` line=first`,
		`msg="gateway: upstream stderr" ` + pid + ` line=last`,
		`msg="gateway: upstream process ended" ` + pid + ` status="exit status 3"`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the log does not say %s:\n%s", want, buf.String())
		}
	}
}

// recorder is a slog handler that keeps the line attribute of every
// record.
type recorder struct {
	mu  sync.Mutex
	got []string
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }

func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			r.got = append(r.got, a.Value.String())
		}
		return true
	})
	return nil
}

func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got
}
