package gazetteer

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/roadbook/roadbook/services/worker/internal/geocode"
)

// Search finds places whose folded name starts with the folded query, most
// populous first, exact name matches before longer names. A query of the
// form "name, CC" (CC an ISO 3166 country code, e.g. "Hamar, NO") filters by
// country. limit is clamped to 1–10.
func (g *Gazetteer) Search(ctx context.Context, query string, limit int) ([]geocode.Place, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name, country := query, ""
	if i := strings.LastIndexByte(query, ','); i >= 0 {
		if cc := strings.TrimSpace(query[i+1:]); utf8.RuneCountInString(cc) == 2 {
			name, country = query[:i], strings.ToUpper(cc)
		}
	}
	key := Fold(name)
	if utf8.RuneCountInString(key) < 2 {
		return nil, fmt.Errorf("%w: query %q needs at least 2 letters or digits", geocode.ErrInvalidArgument, query)
	}
	limit = min(max(limit, 1), 10)
	lo := sort.Search(len(g.names), func(i int) bool { return g.names[i].folded >= key })
	type hit struct {
		idx   int32
		exact bool
	}
	var hits []hit
	for i := lo; i < len(g.names) && strings.HasPrefix(g.names[i].folded, key); i++ {
		idx := g.names[i].idx
		if country != "" && g.entries[idx].country != country {
			continue
		}
		hits = append(hits, hit{idx: idx, exact: g.names[i].folded == key})
	}
	sort.Slice(hits, func(a, b int) bool {
		ha, hb := hits[a], hits[b]
		if ha.exact != hb.exact {
			return ha.exact
		}
		pa, pb := g.entries[ha.idx].population, g.entries[hb.idx].population
		if pa != pb {
			return pa > pb
		}
		return ha.idx < hb.idx
	})
	out := make([]geocode.Place, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, g.place(h.idx))
	}
	return out, nil
}
