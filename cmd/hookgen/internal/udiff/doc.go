// Package udiff writes line-based unified diffs (for hookgen -check), using
// Myers' O(ND) algorithm after trimming the common prefix and suffix.
package udiff
