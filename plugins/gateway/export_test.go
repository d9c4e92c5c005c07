package gateway

// MatchTemplate reports whether uri matches the URI template tmpl as the
// gateway routes a subscription: through the template compiled once.
func MatchTemplate(tmpl string) func(uri string) bool {
	re := compileTemplate(tmpl)
	return func(uri string) bool { return re != nil && re.MatchString(uri) }
}
