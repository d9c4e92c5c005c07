// Command guarded is a hookflow server whose tool calls go through the
// interceptors of a remote guard (examples/guard) over HTTP: the guard's
// validator refuses destructive commands, its mutator redacts personal data
// from requests and results, and the audit plugin records each
// interceptor's decision.
//
//	go run ./examples/guarded -demo     # an in-process guard on loopback HTTP, and calls that show each case
//	GUARD_TOKEN=s3cret go run ./examples/guard -http 127.0.0.1:8090 &
//	GUARD_TOKEN=s3cret go run ./examples/guarded -guard http://127.0.0.1:8090 -http 127.0.0.1:8080
package main
