// Package priority names the positions of hooks within a stage.
//
// Within one stage of one run, hooks run in descending priority; hooks of
// equal priority run in registration order ([Compare] is that rule, used by
// the runtime's registry and by hookgen -explain alike). The default
// priority is 0. The first-party plugins take the named positions below, or
// an offset from one, so that whatever order they are attached in, a tool
// call runs
//
//	beforeValidation … beforeExecute:
//	    audit (start) → auth → sessiongate → ratelimit → remote interceptors (request)
//	    → your hooks → guidance (start) → cache lookup
//	execute
//	afterExecute:
//	    cache store → audit (answered) → your hooks → remote interceptors (response)
//
// (The otel plugin's spans and the console's records take the extremes:
// [First] in beforeValidation, [Last] in finally.)
//
//	name                value     who
//	first               2147483647  the highest priority ([Max]): observers that time a whole run (otel, console)
//	cache-store         2000000   cache: stores a result before any hook rewrites it
//	audit               1000000   audit: sees each stage before the other plugins (but cache-store and otel's extremes), so a refused call is recorded as it arrived
//	auth                1000      auth: refuses a call before it costs anything
//	  auth-50           950       sessiongate (its default): after auth, before rate limits, so a blocked call spends no budget
//	ratelimit           900       ratelimit: spends budget only on allowed calls
//	intercept-request   500       plugins/intercept: remote interceptors see the request before your hooks
//	default             0         hooks that name no position
//	intercept-response  -500      plugins/intercept: remote interceptors see the result after your hooks
//	  cache+1           -999999   guidance: start guidance after every ordinary hook, before a cached answer
//	cache               -1000000  cache: answers early after every other hook
//	last                -2147483648  the lowest priority ([Min]): what runs after every other hook (otel, console in finally)
//
// A hook placed relative to a position is written as an offset from it: in
// Go, priority.Auth + 10 (or flows' Hook.Before and Hook.After); in a
// //hook: directive, priority=auth+10 (runs just before auth) or
// priority=cache-1 (just after the cache lookup). [Parse] reads that form
// and [Format] writes it. Offsets such as auth-50 and cache+1 are not
// positions of their own: a new plugin anchors to a position the same way
// rather than adding one.
//
// Priorities are int32 values, from [Min] to [Max], in Go and in
// directives alike; registering a hook outside that range is an error.
package priority
