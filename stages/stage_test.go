package stages_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hookflow/hookflow/stages"
)

func TestStringParseRoundTrip(t *testing.T) {
	tests := []struct {
		stage stages.Stage
		name  string
	}{
		{stages.BeforeValidation, "beforeValidation"},
		{stages.AfterValidation, "afterValidation"},
		{stages.BeforeExecute, "beforeExecute"},
		{stages.AfterExecute, "afterExecute"},
		{stages.OnError, "onError"},
		{stages.Finally, "finally"},
	}
	if len(tests) != stages.Count {
		t.Fatalf("table has %d stages, stages.Count is %d", len(tests), stages.Count)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.stage.String(); got != tt.name {
				t.Errorf("String() = %q, want %q", got, tt.name)
			}
			got, err := stages.Parse(tt.name)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.name, err)
			}
			if got != tt.stage {
				t.Errorf("Parse(%q) = %v, want %v", tt.name, got, tt.stage)
			}
			if !tt.stage.Valid() {
				t.Errorf("%v.Valid() = false", tt.stage)
			}
		})
	}
}

func TestParseIsStrict(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string
	}{
		{"BeforeValidation", `unknown stage "BeforeValidation" (did you mean "beforeValidation"?)`},
		{"beforevalidation", `unknown stage "beforevalidation" (did you mean "beforeValidation"?)`},
		{"FINALLY", `unknown stage "FINALLY" (did you mean "finally"?)`},
		{"finaly", `unknown stage "finaly" (did you mean "finally"?)`},
		{"onErorr", `unknown stage "onErorr" (did you mean "onError"?)`},
		{"afterExecut", `unknown stage "afterExecut" (did you mean "afterExecute"?)`},
		{"before-execute", `unknown stage "before-execute" (did you mean "beforeExecute"?)`},
		{" finally", `unknown stage " finally" (did you mean "finally"?)`},
		{"", `unknown stage "" (stages: beforeValidation, afterValidation, beforeExecute, afterExecute, onError, finally)`},
		{"validate", `unknown stage "validate" (stages: beforeValidation, afterValidation, beforeExecute, afterExecute, onError, finally)`},
		{"execute", `unknown stage "execute" (stages: beforeValidation, afterValidation, beforeExecute, afterExecute, onError, finally)`},
		{"xyz", `unknown stage "xyz" (stages: beforeValidation, afterValidation, beforeExecute, afterExecute, onError, finally)`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := stages.Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", tt.in, got)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("Parse(%q) error:\n got %s\nwant %s", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		in     string
		want   stages.Stage
		wantOK bool
	}{
		{"beforeexecute", stages.BeforeExecute, true},
		{"afterValidaton", stages.AfterValidation, true},
		{"onerror", stages.OnError, true},
		{"finally", stages.Finally, true},
		{"nothing-like-it", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := stages.Suggest(tt.in)
			if ok != tt.wantOK || (ok && got != tt.want) {
				t.Errorf("Suggest(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestOrder(t *testing.T) {
	want := []stages.Stage{
		stages.BeforeValidation, stages.AfterValidation, stages.BeforeExecute,
		stages.AfterExecute, stages.OnError, stages.Finally,
	}
	all := stages.All()
	if len(all) != stages.Count {
		t.Fatalf("All() has %d stages, want %d", len(all), stages.Count)
	}
	for i := range want {
		if all[i] != want[i] {
			t.Errorf("All()[%d] = %v, want %v", i, all[i], want[i])
		}
		if int(all[i]) != i {
			t.Errorf("%v has value %d, want %d (arrays are indexed by Stage)", all[i], all[i], i)
		}
		if i > 0 && !(all[i-1] < all[i]) {
			t.Errorf("%v does not order before %v", all[i-1], all[i])
		}
	}
	names := stages.Names()
	wantNames := []string{"beforeValidation", "afterValidation", "beforeExecute", "afterExecute", "onError", "finally"}
	if strings.Join(names, ",") != strings.Join(wantNames, ",") {
		t.Errorf("Names() = %v, want %v", names, wantNames)
	}

	// All and Names return copies: changing them changes nothing.
	all[0] = stages.Finally
	names[0] = "changed"
	if stages.All()[0] != stages.BeforeValidation || stages.Names()[0] != "beforeValidation" {
		t.Error("All() or Names() returned shared storage")
	}
}

func TestClassification(t *testing.T) {
	tests := []struct {
		stage                             stages.Stage
		before, after, isError, final, ok bool
	}{
		{stages.BeforeValidation, true, false, false, false, true},
		{stages.AfterValidation, false, true, false, false, true},
		{stages.BeforeExecute, true, false, false, false, true},
		{stages.AfterExecute, false, true, false, false, true},
		{stages.OnError, false, false, true, false, true},
		{stages.Finally, false, false, false, true, true},
		{stages.Stage(6), false, false, false, false, false},
		{stages.Stage(255), false, false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.stage.String(), func(t *testing.T) {
			s := tt.stage
			if s.IsBefore() != tt.before || s.IsAfter() != tt.after || s.IsError() != tt.isError || s.IsFinal() != tt.final || s.Valid() != tt.ok {
				t.Errorf("%v: IsBefore=%v IsAfter=%v IsError=%v IsFinal=%v Valid=%v; want %v %v %v %v %v",
					s, s.IsBefore(), s.IsAfter(), s.IsError(), s.IsFinal(), s.Valid(),
					tt.before, tt.after, tt.isError, tt.final, tt.ok)
			}
		})
	}
}

func TestStringOfInvalidStage(t *testing.T) {
	tests := []struct {
		stage stages.Stage
		want  string
	}{
		{stages.Stage(6), "Stage(6)"},
		{stages.Stage(200), "Stage(200)"},
	}
	for _, tt := range tests {
		if got := tt.stage.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestText(t *testing.T) {
	for _, s := range stages.All() {
		t.Run(s.String(), func(t *testing.T) {
			b, err := s.MarshalText()
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != s.String() {
				t.Errorf("MarshalText() = %q, want %q", b, s.String())
			}
			var back stages.Stage
			if err := back.UnmarshalText(b); err != nil {
				t.Fatal(err)
			}
			if back != s {
				t.Errorf("UnmarshalText(%q) = %v, want %v", b, back, s)
			}
		})
	}

	t.Run("invalid", func(t *testing.T) {
		if b, err := stages.Stage(9).MarshalText(); err == nil {
			t.Errorf("MarshalText of Stage(9) = %q, want an error", b)
		}
		s := stages.Finally
		err := s.UnmarshalText([]byte("Finally"))
		if err == nil || !strings.Contains(err.Error(), `did you mean "finally"`) {
			t.Errorf("UnmarshalText(Finally) error = %v, want a did-you-mean error", err)
		}
		if s != stages.Finally {
			t.Errorf("a failed UnmarshalText changed the stage to %v", s)
		}
	})

	t.Run("json", func(t *testing.T) {
		type doc struct {
			Stage stages.Stage `json:"stage"`
		}
		b, err := json.Marshal(doc{stages.AfterExecute})
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != `{"stage":"afterExecute"}` {
			t.Errorf("json = %s", b)
		}
		var d doc
		if err := json.Unmarshal([]byte(`{"stage":"onError"}`), &d); err != nil || d.Stage != stages.OnError {
			t.Errorf("json.Unmarshal = %v, %v", d.Stage, err)
		}
		if err := json.Unmarshal([]byte(`{"stage":"OnError"}`), &d); err == nil {
			t.Error("json.Unmarshal accepted a wrongly cased stage name")
		}
	})
}
