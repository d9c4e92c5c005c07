package audit

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/hookflow/hookflow/flows"
)

// Config configures the audit plugin. The zero value audits every flow to
// the server's logger.
type Config struct {
	// Name is the plugin's name (default "audit"); set it to attach two
	// audit plugins to one server or app.
	Name string `yaml:"name"`
	// Handler receives every event as a slog record, message "audit" at
	// level Info, with the attributes of [Event].
	Handler slog.Handler `yaml:"-"`
	// File writes every event as one JSON line to a file rotated by size
	// (off by default); a configuration file gives its path alone
	// (relative to the file's directory), "stderr", or its fields.
	// Without File or Handler, events go to the server's logger.
	File File `yaml:"file"`
	// Redact lists argument fields whose values are replaced by
	// [Redacted] besides the default secret list of flows.Redactor
	// (passwords, tokens, secrets, API keys, cookies…): a name ("ssn")
	// matches fields whose words end with its words at any depth
	// ("user_ssn"), a dotted path ("card.number", "items.*.pin") matches
	// from the top. Other readers of run data given the same lists hide
	// the same fields.
	Redact []string `yaml:"redact"`
	// Reveal lists names the default secret list hides that are recorded
	// anyway ("session_id"); Redact wins over it.
	Reveal []string `yaml:"reveal"`
	// QueueSize is how many events may wait for the sinks (default 1024).
	// When the queue is full, events are dropped and counted.
	QueueSize int `yaml:"queue_size"`
	// MaxArgsBytes caps [Event.Args] (default DefaultMaxArgsBytes, 8 KiB):
	// longer arguments are recorded, after redaction, as a JSON string
	// holding their first bytes, and the event's Truncated lists "args".
	MaxArgsBytes int `yaml:"max_args_bytes"`
	// MaxTextBytes caps [Event.Error] and [Event.URI] (default
	// DefaultMaxTextBytes, 1 KiB): a longer text is cut, ends with "…",
	// and the event's Truncated lists the field.
	MaxTextBytes int `yaml:"max_text_bytes"`
	// Flows are the flows to audit, by ID ("tools:call-tool"); none audits
	// every flow.
	Flows []flows.ID `yaml:"flows"`
}

// File configures the JSON-lines file sink. It is off when Path is empty
// and Stderr unset.
type File struct {
	// Path is the file's path. It is created with mode 0600, and appended to.
	Path string `yaml:"path" path:"relative"`
	// Stderr writes the JSON lines to the process's standard error instead
	// of Path, unrotated; a configuration file says "stderr".
	Stderr bool `yaml:"-"`
	// MaxBytes is the size a file may reach before it is rotated (default
	// 10 MiB): Path is renamed Path.1, Path.1 becomes Path.2, and so on.
	MaxBytes int64 `yaml:"max_bytes"`
	// MaxBackups is how many rotated files are kept (default 3).
	MaxBackups int `yaml:"max_backups"`
}

// UnmarshalText reads the short form of a File: "stderr", or a path.
func (f *File) UnmarshalText(text []byte) error {
	if string(text) == "stderr" {
		*f = File{Stderr: true}
		return nil
	}
	*f = File{Path: string(text)}
	return nil
}

// Validate checks the configuration, and that the file it names can be
// appended to, without creating or writing it. Each error is a
// *flows.Error whose Field is the field's path in a configuration file's
// spelling ("file.max_bytes").
func (c Config) Validate() error {
	var errs []error
	invalid := func(field, format string, args ...any) {
		errs = append(errs, &flows.Error{Code: flows.CodeInvalid, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	for _, n := range []struct {
		field string
		v     int64
	}{
		{"queue_size", int64(c.QueueSize)}, {"max_args_bytes", int64(c.MaxArgsBytes)}, {"max_text_bytes", int64(c.MaxTextBytes)},
		{"file.max_bytes", c.File.MaxBytes}, {"file.max_backups", int64(c.File.MaxBackups)},
	} {
		if n.v < 0 {
			invalid(n.field, "must not be negative, got %d", n.v)
		}
	}
	switch f := c.File; {
	case f.Stderr && f.Path != "":
		invalid("file", "gives both a path and stderr: give one")
	case f.Path == "" && (f.MaxBytes != 0 || f.MaxBackups != 0):
		invalid("file.path", "required when max_bytes or max_backups is set")
	case f.Path != "":
		if err := checkAppendable(f.Path); err != nil {
			invalid("file", "%v", err)
		}
	}
	for i, r := range c.Redact {
		if _, err := flows.NewRedactor(flows.Redaction{Fields: []string{r}}); err != nil {
			invalid(fmt.Sprintf("redact[%d]", i), "%s", flows.Reason(err))
		}
	}
	for i, r := range c.Reveal {
		if _, err := flows.NewRedactor(flows.Redaction{Reveal: []string{r}}); err != nil {
			invalid(fmt.Sprintf("reveal[%d]", i), "%s", flows.Reason(err))
		}
	}
	for i, f := range c.Flows {
		if _, err := flows.Parse(string(f)); err != nil {
			invalid(fmt.Sprintf("flows[%d]", i), "%s", flows.Reason(err))
		}
	}
	return errors.Join(errs...)
}

// The defaults of [Config] and [File].
const (
	DefaultQueueSize    = 1024
	DefaultMaxArgsBytes = 8 << 10
	DefaultMaxTextBytes = 1 << 10
	DefaultMaxBytes     = 10 << 20
	DefaultMaxBackups   = 3
)
