// Package suggest finds the likely intended word for a near miss, for the
// "did you mean" hints of hookflow's parsers (stage names, flow IDs,
// directive names and keys).
package suggest
