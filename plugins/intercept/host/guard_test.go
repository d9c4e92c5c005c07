package host_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/hookflow/hookflow/plugins/intercept/host"
)

// What the handler's guard passes on: nothing without a good token (401,
// with a fixed text even when the verifier quotes the token), and with
// one, the request without its Authorization header, carrying the
// token's description.
func TestGuard(t *testing.T) {
	quoting := func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		if token == "good" {
			return &sdkauth.TokenInfo{UserID: "invoker", Expiration: time.Now().Add(time.Hour)}, nil
		}
		return nil, errors.Join(errors.New("unknown token "+token), sdkauth.ErrInvalidToken)
	}
	type seen struct {
		auth, user string
	}
	var got []seen
	h := host.Guard(quoting, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := seen{auth: r.Header.Get("Authorization")}
		if ti := sdkauth.TokenInfoFromContext(r.Context()); ti != nil {
			s.user = ti.UserID
		}
		got = append(got, s)
	}))
	for _, tt := range []struct {
		name, header string
		status       int
	}{
		{"no header", "", http.StatusUnauthorized},
		{"not bearer", "Basic Z29vZA==", http.StatusUnauthorized},
		{"a bad token", "Bearer s3cret-guess", http.StatusUnauthorized},
		{"the token", "Bearer good", http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got = nil
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`))
			if tt.header != "" {
				r.Header.Set("Authorization", tt.header)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			body, _ := io.ReadAll(w.Result().Body)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d", w.Code, tt.status)
			}
			if strings.Contains(string(body), "s3cret-guess") {
				t.Errorf("the 401 body quotes the token: %q", body)
			}
			if tt.status != http.StatusOK {
				if len(got) != 0 {
					t.Errorf("the request reached the server: %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].auth != "" || got[0].user != "invoker" {
				t.Errorf("the server saw %+v, want the token's user and no Authorization header", got)
			}
		})
	}
}
