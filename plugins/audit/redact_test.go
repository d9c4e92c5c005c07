package audit

import "testing"

func TestRedact(t *testing.T) {
	tests := []struct {
		name   string
		fields []string
		in     string
		want   string
	}{
		{"none", nil, `{"a": 1}`, `{"a": 1}`},
		{"name at any depth", []string{"token"}, `{"token":"t","a":{"token":"t","b":[{"token":"t"}]}}`,
			`{"a":{"b":[{"token":"[REDACTED]"}],"token":"[REDACTED]"},"token":"[REDACTED]"}`},
		{"case-insensitive", []string{"password"}, `{"PassWord":"p"}`, `{"PassWord":"[REDACTED]"}`},
		{"path from the top only", []string{"card.number"}, `{"card":{"number":1,"cvc":2},"other":{"card":{"number":3}}}`,
			`{"card":{"cvc":2,"number":"[REDACTED]"},"other":{"card":{"number":3}}}`},
		{"path through arrays", []string{"items.secret"}, `{"items":[{"secret":1,"x":2},{"secret":3}]}`,
			`{"items":[{"secret":"[REDACTED]","x":2},{"secret":"[REDACTED]"}]}`},
		{"wildcard", []string{"users.*.ssn"}, `{"users":{"ada":{"ssn":1,"age":36},"alan":{"ssn":2}}}`,
			`{"users":{"ada":{"age":36,"ssn":"[REDACTED]"},"alan":{"ssn":"[REDACTED]"}}}`},
		{"whole object", []string{"auth"}, `{"auth":{"user":"u","key":"k"}}`, `{"auth":"[REDACTED]"}`},
		{"numbers kept as written", []string{"x"}, `{"n":12345678901234567890,"f":1.50}`, `{"f":1.50,"n":12345678901234567890}`},
		{"not an object", []string{"x"}, `[1,{"x":2}]`, `[1,{"x":"[REDACTED]"}]`},
		{"unparsable", []string{"x"}, `{"x":`, `"[UNPARSABLE]"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := newRedactor(tt.fields)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(r.apply([]byte(tt.in))); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
