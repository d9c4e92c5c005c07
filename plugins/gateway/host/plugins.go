package host

import (
	"fmt"
	"reflect"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
)

// PluginSpec is a plugin a gateway configuration file can turn on: its
// key under plugins, the type of its configuration (the section under
// that key decodes into it) and its constructor. Make one with [Plugin];
// the hookflow command lists the first-party plugins' specs explicitly.
type PluginSpec struct {
	name   string
	config reflect.Type
	build  func(cfg any) framework.Plugin
	// front is whether the plugin is a HandlerPlugin whose middleware
	// can stand in front of a PagesPlugin's pages.
	front bool
	// upstreams hands the gateway's upstreams to a configuration that
	// is UpstreamAware; nil for one that is not.
	upstreams func(cfg any, prefixes map[string]string) any
}

// Plugin returns the spec of the plugin whose configuration file key is
// name, configured by a C and built by New.
//
// The section under name decodes into a zero C: each key into the field
// whose yaml tag names it (an unknown key is an error, with a "did you
// mean"), a time.Duration from "5s", a scalar into a type that implements
// encoding.TextUnmarshaler through it. Then C's Validate runs, and each
// error it reports is shown at the line and column of the field its
// *flows.Error's Field names ("tokens[0].user"). The plugin's package
// imports no YAML: its tags and Validate are its whole part. A C that is
// [UpstreamAware] gets the gateway's upstreams first.
func Plugin[C interface{ Validate() error }, P framework.Plugin](name string, New func(C) P) PluginSpec {
	return PluginSpec{
		name:   name,
		config: reflect.TypeFor[C](),
		build:  func(cfg any) framework.Plugin { return New(cfg.(C)) },
		front: reflect.TypeFor[P]().Implements(reflect.TypeFor[interface {
			HandlerPlugin
			middlewarePlugin
		}]()),
		upstreams: upstreamsOf[C](),
	}
}

// Name returns the plugin's key in a configuration file.
func (s PluginSpec) Name() string { return s.name }

// Config returns the type of the plugin's configuration.
func (s PluginSpec) Config() reflect.Type { return s.config }

// New validates cfg, a value of the type Config returns, and builds the
// plugin.
func (s PluginSpec) New(cfg any) (framework.Plugin, error) {
	if err := s.validate(cfg); err != nil {
		return nil, err
	}
	return s.build(cfg), nil
}

// validate checks that cfg is a valid configuration of the plugin.
func (s PluginSpec) validate(cfg any) error {
	if s.build == nil {
		return &flows.Error{Code: flows.CodeInvalid, Msg: "gateway: a PluginSpec not made by Plugin"}
	}
	if reflect.TypeOf(cfg) != s.config {
		return &flows.Error{Code: flows.CodeInvalid, Msg: fmt.Sprintf("gateway: plugin %q is configured by a %v, got a %T", s.name, s.config, cfg)}
	}
	return cfg.(interface{ Validate() error }).Validate()
}
