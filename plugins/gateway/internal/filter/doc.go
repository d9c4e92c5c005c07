// Package filter checks the settings that choose and rename what an
// upstream mounts: its tool patterns and its resource prefix. The gateway
// checks them in its Config's Validate, and package host where a
// configuration file sets them, at the key's position; both say the same.
package filter
