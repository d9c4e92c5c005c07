// Command weather is the server of docs/own-module.md: one tool with one
// embedded hook, served on stdio, that traces every hook call and step to
// stderr. Copied into a module of your own, it is where a new hookflow
// server starts.
package main
