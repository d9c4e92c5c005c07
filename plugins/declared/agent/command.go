package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/plugins/declared"
)

// Quote returns args as one POSIX shell command line: the agents run a
// command hook through a shell. An argument of only letters, digits and
// _ @ % + = : , . / - is written as is, any other in single quotes.
func Quote(args ...string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

// Split splits a command line into its words as a POSIX shell would,
// without expanding anything: words are separated by blanks; single
// quotes keep everything up to the next one; double quotes keep everything
// but a backslash before one of $ ` " \ or a newline; a backslash outside
// quotes keeps the next character.
func Split(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(line) {
				i++
				if line[i] != '\n' {
					w.WriteByte(line[i])
				}
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated single quote at byte %d of %q", i, line)
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' && j+1 < len(line) && strings.IndexByte("$`\"\\\n", line[j+1]) >= 0 {
					j++
				}
				w.WriteByte(line[j])
			}
			if j >= len(line) {
				return nil, fmt.Errorf("unterminated double quote at byte %d of %q", i, line)
			}
			i = j
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// IsURL reports whether server names a streamable HTTP endpoint rather
// than a command.
func IsURL(server string) bool {
	return strings.HasPrefix(server, "http://") || strings.HasPrefix(server, "https://")
}

// Connect connects to server, a streamable HTTP URL or a command line that
// starts an MCP server on standard input and output (split with [Split],
// run without a shell; its standard error goes to stderr), as a client
// that supports events. Closing the session stops the command.
func Connect(ctx context.Context, server string, stderr io.Writer, events ...declared.Event) (*mcp.ClientSession, error) {
	var t mcp.Transport
	if IsURL(server) {
		t = &mcp.StreamableClientTransport{Endpoint: server}
	} else {
		argv, err := Split(server)
		if err != nil {
			return nil, fmt.Errorf("--server: %w", err)
		}
		if len(argv) == 0 {
			return nil, errors.New("--server: empty command")
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stderr = stderr
		t = &mcp.CommandTransport{Command: cmd}
	}
	caps := declared.DeclareSupport(nil, events...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hookflow", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", server, err)
	}
	return cs, nil
}
