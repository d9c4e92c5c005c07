package oauth

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
	"sync/atomic"
	"time"
)

// verifiedTokens remembers the JWTs this server accepted, so that a client
// calling again with the same token skips the signature check and the
// decoding of its claims.
//
// It is a table of a fixed number of slots (Config.TokenCacheSize rounded
// up to a power of two), each holding one token's result and found by the
// token's SHA-256, never the token itself: it never grows, whatever the
// number of distinct tokens, and a token takes the slot of whichever token
// had it before. A result is used only
//   - before the token's exp (exp itself: the clock skew is left to the
//     full check, which still accepts the token in it),
//   - while the keys it was verified with are the current ones (a fetch
//     of the JWKS ends every result verified before it), and
//   - while those keys are younger than Config.KeyMaxAge, so that their
//     renewal starts as it does for a token checked in full.
//
// Only accepted tokens are kept: a refused one is checked in full each
// time. Reads and writes are lock-free; a nil *verifiedTokens (the cache
// off) keeps nothing.
type verifiedTokens struct {
	slots []atomic.Pointer[verifiedToken]
	mask  uint64
}

// verifiedToken is one accepted token's result.
type verifiedToken struct {
	sum   [sha256.Size]byte
	p     *Principal
	keys  *keySnapshot
	until time.Time
}

// newVerifiedTokens returns a cache of at least size slots, or nil when
// size is not positive.
func newVerifiedTokens(size int) *verifiedTokens {
	if size <= 0 {
		return nil
	}
	n := uint64(1) << bits.Len64(uint64(size-1))
	return &verifiedTokens{slots: make([]atomic.Pointer[verifiedToken], n), mask: n - 1}
}

// slot returns the slot of the token whose SHA-256 is sum.
func (v *verifiedTokens) slot(sum *[sha256.Size]byte) *atomic.Pointer[verifiedToken] {
	return &v.slots[binary.LittleEndian.Uint64(sum[:8])&v.mask]
}

// get returns the principal of the token whose SHA-256 is sum, when it was
// accepted under keys, the current key set, and may still be used at now;
// nil otherwise.
func (v *verifiedTokens) get(sum *[sha256.Size]byte, keys *keySnapshot, now time.Time, maxAge time.Duration) *Principal {
	if v == nil || keys == nil {
		return nil
	}
	e := v.slot(sum).Load()
	if e == nil || e.sum != *sum || e.keys != keys || !now.Before(e.until) || now.Sub(keys.fetched) >= maxAge {
		return nil
	}
	return e.p
}

// put keeps p, the principal of the token whose SHA-256 is sum, accepted
// under keys: the key set that was current before its check began, so
// that a fetch during the check leaves the result unused.
func (v *verifiedTokens) put(sum *[sha256.Size]byte, p *Principal, keys *keySnapshot) {
	if v == nil || keys == nil {
		return
	}
	v.slot(sum).Store(&verifiedToken{sum: *sum, p: p, keys: keys, until: p.Expiry})
}
