// Package engine runs hookgen's pipeline: load, analyze, render, and (on
// request) write. Run computes what every package's hookgen_gen.go should
// hold without touching the disk, so -check and -explain share it with
// generation; Result.Write then writes what changed.
package engine
