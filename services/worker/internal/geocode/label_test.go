package geocode

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// otta is Otta, Norway (the gazetteer's coordinates, rounded).
var otta = Place{Name: "Otta", Lat: 61.7717, Lon: 9.5381}

// kmFrom moves p north by dNorthKm and east by dEastKm.
func kmFrom(p Place, dNorthKm, dEastKm float64) Point {
	return Point{Lat: p.Lat + dNorthKm/111.195, Lon: p.Lon + dEastKm/(111.195*0.4735)}
}

func TestLabels(t *testing.T) {
	t.Parallel()

	t.Run("an end in the place carries its name, one far from it says where", func(t *testing.T) {
		t.Parallel()
		in := kmFrom(otta, 0.5, 0.2)
		far := kmFrom(otta, -16.3, 16.3) // 23 km to the south-east
		got := Labels([]Point{in, far}, []Place{otta, otta})
		require.Equal(t, []string{"Otta", "23 km SE of Otta"}, got)
	})

	t.Run("never a question mark: no place known gives the coordinates", func(t *testing.T) {
		t.Parallel()
		got := Labels([]Point{{Lat: -40.5, Lon: -130.25}}, []Place{{}})
		require.Equal(t, []string{"40.50° S, 130.25° W"}, got)
	})

	t.Run("consecutive ends kilometres apart never share a bare name", func(t *testing.T) {
		t.Parallel()
		// Three days ending around Otta: 1 km west, 2.7 km east (both
		// within 3 km, so both would read "Otta"), then 80 km north.
		pts := []Point{kmFrom(otta, 0, -1), kmFrom(otta, 0, 2.7), kmFrom(otta, 80, 0)}
		got := Labels(pts, []Place{otta, otta, otta})
		require.Equal(t, []string{"Otta", "3 km E of Otta", "80 km N of Otta"}, got)
		for i := 1; i < len(got); i++ {
			require.NotEqual(t, got[i-1], got[i])
		}
	})

	t.Run("a geocoder that answers each end with an object beside it still tells ends apart", func(t *testing.T) {
		t.Parallel()
		// Nominatim's reverse answers the centroid of the object it found
		// near the point (a hamlet, a farm, a neighbourhood), while the
		// name is the settlement of its address: two ends 40 km apart can
		// both be "Lesja", each 200 m from "its" place. The later one is
		// said from the place the earlier one was named by.
		a, b := kmFrom(otta, 0, 0), kmFrom(otta, 40, 0)
		near := func(p Point) Place {
			q := kmFrom(Place{Lat: p.Lat, Lon: p.Lon}, 0.2, 0)
			return Place{Name: "Lesja", Lat: q.Lat, Lon: q.Lon}
		}
		got := Labels([]Point{a, b}, []Place{near(a), near(b)})
		require.Equal(t, []string{"Lesja", "40 km N of Lesja"}, got)
	})

	t.Run("two ends a few hundred metres apart in one place keep its name", func(t *testing.T) {
		t.Parallel()
		pts := []Point{kmFrom(otta, 0.2, 0), kmFrom(otta, -0.3, 0.4)}
		require.Equal(t, []string{"Otta", "Otta"}, Labels(pts, []Place{otta, otta}))
	})

	t.Run("the compass has eight winds", func(t *testing.T) {
		t.Parallel()
		for want, p := range map[string]Point{"N": kmFrom(otta, 10, 0), "E": kmFrom(otta, 0, 10), "SW": kmFrom(otta, -10, -10), "NW": kmFrom(otta, 10, -10)} {
			require.Equal(t, want, compass(Point{Lat: otta.Lat, Lon: otta.Lon}, p))
		}
	})
}

func TestStageLabels(t *testing.T) {
	t.Parallel()

	t.Run("a trip's stage ends are named as one chain, and a gap is named on its own", func(t *testing.T) {
		t.Parallel()
		a, b, c := kmFrom(otta, 0, 0), kmFrom(otta, 40, 0), kmFrom(otta, 80, 0)
		far := kmFrom(otta, 0, 30)
		stages := []StageEnds{
			{Index: 0, ContentHash: "h0", Start: a, End: b},
			{Index: 1, ContentHash: "h1", Start: b, End: c},
			{Index: 2, ContentHash: "h2", Start: far, End: a}, // an edit left a gap
		}
		got := StageLabels(stages, func(Point) Place { return otta })
		require.Equal(t, []StageLabel{
			{Index: 0, ContentHash: "h0", Start: "Otta", End: "40 km N of Otta"},
			{Index: 1, ContentHash: "h1", Start: "40 km N of Otta", End: "80 km N of Otta"},
			{Index: 2, ContentHash: "h2", Start: "30 km E of Otta", End: "Otta"},
		}, got)
	})
}
