package scope_test

import (
	"sync"
	"testing"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/scope"
)

// TestChildNamesAreUniquePerKind checks that a scope refuses a second child
// with the same kind and name (their hooks would share an owner path), while
// the same name under another kind or another parent is fine.
func TestChildNamesAreUniquePerKind(t *testing.T) {
	root := scope.New("srv")
	app := must[*scope.Scope](t)(root.Child(scope.KindApp, "billing"))
	must[*scope.Scope](t)(root.Child(scope.KindPlugin, "billing"))
	must[*scope.Scope](t)(app.Child(scope.KindPlugin, "billing"))

	tests := []struct {
		parent *scope.Scope
		kind   scope.Kind
		name   string
	}{
		{root, scope.KindApp, "billing"},
		{root, scope.KindPlugin, "billing"},
		{app, scope.KindPlugin, "billing"},
	}
	for _, tt := range tests {
		c, err := tt.parent.Child(tt.kind, tt.name)
		if err == nil || c != nil || flows.CodeOf(err) != flows.CodeDuplicate {
			t.Errorf("%s.Child(%v, %q) again = %v, %v; want a CodeDuplicate error", tt.parent, tt.kind, tt.name, c, err)
		}
	}
}

// TestChildConcurrentSameName checks that of many concurrent Child calls
// with one name exactly one wins.
func TestChildConcurrentSameName(t *testing.T) {
	root := scope.New("srv")
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := root.Child(scope.KindApp, "a")
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		if err == nil {
			ok++
		} else if flows.CodeOf(err) != flows.CodeDuplicate {
			t.Errorf("err = %v, want CodeDuplicate", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d of %d concurrent Child calls succeeded, want 1", ok, n)
	}
}
