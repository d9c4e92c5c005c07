// Package slowcalls is the plugin that docs/plugins.md builds step by step:
// it reports tool calls slower than a threshold.
package slowcalls
