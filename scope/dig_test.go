package scope_test

import (
	"testing"

	"github.com/hookflow/hookflow/scope"
)

type (
	dbConn   struct{ dsn string }
	appCfg   struct{ name string }
	auditLog struct{ db *dbConn }
)

// A child scope's container sees its ancestors' providers; a parent does not
// see its children's, and siblings do not see each other's.
func TestDependencyContainers(t *testing.T) {
	root := scope.New("srv")
	appA := must[*scope.Scope](t)(root.Child(scope.KindApp, "a"))
	appB := must[*scope.Scope](t)(root.Child(scope.KindApp, "b"))
	pluginA := must[*scope.Scope](t)(appA.Child(scope.KindPlugin, "audit"))

	if err := root.Provide(func() *dbConn { return &dbConn{dsn: "db://root"} }); err != nil {
		t.Fatal(err)
	}
	if err := appA.Provide(func() *appCfg { return &appCfg{name: "a"} }); err != nil {
		t.Fatal(err)
	}
	if err := pluginA.Provide(func(db *dbConn) *auditLog { return &auditLog{db: db} }); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		s       *scope.Scope
		fn      any
		wantErr bool
	}{
		{"root sees its own", root, func(db *dbConn) {}, false},
		{"app sees root's", appA, func(db *dbConn) {}, false},
		{"app sees its own", appA, func(c *appCfg) {}, false},
		{"plugin sees grandparent's, parent's and own", pluginA, func(db *dbConn, c *appCfg, a *auditLog) {}, false},
		{"root does not see the app's", root, func(c *appCfg) {}, true},
		{"root does not see the plugin's", root, func(a *auditLog) {}, true},
		{"app does not see its plugin's", appA, func(a *auditLog) {}, true},
		{"sibling does not see app A's", appB, func(c *appCfg) {}, true},
		{"sibling sees root's", appB, func(db *dbConn) {}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Invoke(tt.fn)
			if (err != nil) != tt.wantErr {
				t.Errorf("Invoke = %v, want error: %v", err, tt.wantErr)
			}
		})
	}

	// Values are built once and shared down the tree.
	var fromRoot, fromPlugin *dbConn
	if err := root.Invoke(func(db *dbConn) { fromRoot = db }); err != nil {
		t.Fatal(err)
	}
	if err := pluginA.Invoke(func(a *auditLog) { fromPlugin = a.db }); err != nil {
		t.Fatal(err)
	}
	if fromRoot != fromPlugin || fromRoot.dsn != "db://root" {
		t.Errorf("root and plugin got different *dbConn: %p %p", fromRoot, fromPlugin)
	}
}

// A decorator in a child scope changes what the child (and its descendants)
// get, not what the parent gets.
func TestDecorateInChild(t *testing.T) {
	root := scope.New("srv")
	app := must[*scope.Scope](t)(root.Child(scope.KindApp, "a"))
	plugin := must[*scope.Scope](t)(app.Child(scope.KindPlugin, "p"))
	if err := root.Provide(func() *appCfg { return &appCfg{name: "root"} }); err != nil {
		t.Fatal(err)
	}
	if err := app.Decorate(func(c *appCfg) *appCfg { return &appCfg{name: c.name + "+app"} }); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		s    *scope.Scope
		want string
	}{{root, "root"}, {app, "root+app"}, {plugin, "root+app"}}
	for _, tt := range tests {
		var got string
		if err := tt.s.Invoke(func(c *appCfg) { got = c.name }); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("%v gets %q, want %q", tt.s, got, tt.want)
		}
	}
}
