package tools

import (
	"testing"

	"github.com/stretchr/testify/require"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

func TestResupplyOut(t *testing.T) {
	t.Parallel()
	water, shop := roadbookv1.ResupplyKind_RESUPPLY_KIND_WATER, roadbookv1.ResupplyKind_RESUPPLY_KIND_SHOP
	t.Run("a long day is bounded to the nearest point of each kind per stretch, the rest counted", func(t *testing.T) {
		t.Parallel()
		// 200 km, two of each kind every 10 km: 80 points, more than 60.
		r := &roadbookv1.StageResupply{SegmentM: 10000}
		for seg := range 20 {
			for j, k := range []roadbookv1.ResupplyKind{water, water, shop, shop} {
				r.Points = append(r.Points, &roadbookv1.ResupplyPoint{Kind: k, AtM: float64(seg*10000 + j*1000), OffRouteM: float64(100 * (j + 1))})
			}
		}
		r.Omitted = []*roadbookv1.ResupplyOmitted{{FromM: 0, ToM: 10000, Kind: water, Count: 3}}
		out := resupplyOut(r)
		require.Len(t, out.Points, 40, "one water and one shop per stretch")
		for _, p := range out.Points {
			require.Contains(t, []int{100, 300}, p.OffRouteM, "the nearest of its kind")
		}
		require.Len(t, out.More, 40)
		require.Equal(t, ResupplyMore{FromKm: 0, ToKm: 10, Kind: "water", Count: 4}, out.More[1], "3 omitted by the analysis + 1 here")
	})
	t.Run("a day within the bound lists every point with its passage", func(t *testing.T) {
		t.Parallel()
		out := resupplyOut(&roadbookv1.StageResupply{SegmentM: 10000, Points: []*roadbookv1.ResupplyPoint{
			{Kind: shop, Name: "Coop", AtM: 12345, OffRouteM: 80.4, OpenAtPassage: roadbookv1.OpenAtPassage_OPEN_AT_PASSAGE_CLOSED, PassageMinuteOfDay: 9*60 + 5},
		}})
		require.Equal(t, []ResupplyPoint{{Kind: "shop", Name: "Coop", Km: 12.3, OffRouteM: 80, OpenWhenPassing: "closed", Passage: "09:05"}}, out.Points)
		require.Empty(t, out.More)
	})
	t.Run("nothing looked at is absent, nothing found is an empty list", func(t *testing.T) {
		t.Parallel()
		require.Nil(t, resupplyOut(nil))
		require.Equal(t, []ResupplyPoint{}, resupplyOut(&roadbookv1.StageResupply{SegmentM: 10000}).Points)
	})
}
