// Package explain prints the hook plan of one flow, per entity, in the order
// the runtime will run it (hookgen -explain).
package explain
