package tripstore

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/roadbook/roadbook/domain/route"
)

// PutRoute stores a route's points once, content-addressed in the compact
// binary encoding, and returns the hash events refer to (lowercase hex
// SHA-256). Points are never kept in a cache with a TTL: re-pacing a trip a
// month later must still find them.
func (s *Store) PutRoute(ctx context.Context, pts []route.Point) (string, error) {
	enc := route.EncodePoints(pts)
	sum := route.ContentHash(enc)
	if err := s.events.PutBlob(ctx, sum[:], enc); err != nil {
		return "", err
	}
	return hex.EncodeToString(sum[:]), nil
}

// Route loads the points stored under hash.
func (s *Store) Route(ctx context.Context, hash string) ([]route.Point, error) {
	raw, err := HashBytes(hash)
	if err != nil {
		return nil, err
	}
	enc, err := s.events.Blob(ctx, raw)
	if err != nil {
		return nil, err
	}
	return route.DecodePoints(enc)
}

// RouteLine is the route stored under hash, measured once (route.Line) and
// kept in a small LRU: a route never changes under its hash, and a rider
// cutting days one after another re-reads the same one. The Line is shared
// between callers: read it, never write to it.
func (s *Store) RouteLine(ctx context.Context, hash string) (route.Line, error) {
	if l, ok := s.lines.Get(hash); ok {
		return l, nil
	}
	pts, err := s.Route(ctx, hash)
	if err != nil {
		return route.Line{}, err
	}
	l := route.Measure(pts)
	s.lines.Add(hash, l)
	return l, nil
}

// HashBytes decodes a hex route hash (for BlobRefs).
func HashBytes(hash string) ([]byte, error) {
	raw, err := hex.DecodeString(hash)
	if err != nil || len(raw) != 32 {
		return nil, fmt.Errorf("tripstore: route hash %q is not 64 hex digits", truncate(hash, 80))
	}
	return raw, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
