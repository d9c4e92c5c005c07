package console

import (
	"crypto/rand"
	"encoding/binary"
	"time"

	"github.com/oklog/ulid/v2"
)

// A run's ID is a ULID: the time the console kept the run (to the
// millisecond), then the 48 random bits the console drew when it started
// (its stamp), then the run's number in the ring (32 bits). IDs sort by
// time, never repeat across restarts, and say whether a run is of this
// start of the console, and which.
type stamp [6]byte

// newStamp draws a console's stamp.
func newStamp() stamp {
	var s stamp
	_, _ = rand.Read(s[:])
	return s
}

// runID returns the ID of the run numbered seq, kept at t.
func (s stamp) runID(t time.Time, seq uint64) string {
	var e [10]byte
	copy(e[:6], s[:])
	binary.BigEndian.PutUint32(e[6:], uint32(seq))
	var id ulid.ULID
	_ = id.SetTime(ulid.Timestamp(t))
	_ = id.SetEntropy(e[:])
	return id.String()
}

// parseRunID returns the low 32 bits of the number of the run id names,
// whether it is of this stamp, and whether id is a run ID at all.
func (s stamp) parseRunID(id string) (low uint32, ours, ok bool) {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return 0, false, false
	}
	e := u.Entropy()
	return binary.BigEndian.Uint32(e[6:]), [6]byte(e[:6]) == s, true
}
