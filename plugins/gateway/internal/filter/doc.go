// Package filter checks the settings that choose and rename what an
// upstream mounts: its tool patterns, its resource prefix, and the globs,
// hints and new names of its selectors and overrides. The gateway
// checks them in its Config's Validate, and package host where a
// configuration file sets them, at the key's position; both say the same.
package filter
