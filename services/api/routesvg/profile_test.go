package routesvg_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/services/api/routesvg"
)

// climb is a 100 km line northwards, one point every 10 m, rising from 100 m
// to a single 1234 m summit point at 60 km and back down to 200 m.
func climb() []route.Point {
	const n = 10000
	pts := make([]route.Point, n+1)
	for i := range pts {
		ele := 100 + 900*float64(i)/n
		if i > 6000 {
			ele = 1000 - 800*float64(i-6000)/4000
		}
		pts[i] = route.Point{Lat: 45 + float64(i)*10/111195, Lon: 6, Ele: ele, HasEle: true}
	}
	pts[6000].Ele = 1234
	return pts
}

func TestReduce(t *testing.T) {
	t.Parallel()

	t.Run("keeps the summit and both ends within the sample budget", func(t *testing.T) {
		t.Parallel()
		pts := climb()
		s, err := routesvg.Reduce(pts, 100)
		require.NoError(t, err)
		require.LessOrEqual(t, len(s), 100)
		require.Greater(t, len(s), 50)
		top := 0.0
		for i, v := range s {
			top = math.Max(top, v.EleM)
			if i > 0 {
				require.GreaterOrEqual(t, v.DistanceM, s[i-1].DistanceM, "distances run forwards")
			}
		}
		require.Equal(t, 1234.0, top, "an even stride would have skipped the one-point summit")
		require.Equal(t, 100.0, s[0].EleM)
		require.Equal(t, 200.0, s[len(s)-1].EleM)
		require.InDelta(t, 100000, s[len(s)-1].DistanceM, 200)
	})

	t.Run("a short line is returned whole", func(t *testing.T) {
		t.Parallel()
		pts := climb()[:10]
		s, err := routesvg.Reduce(pts, 100)
		require.NoError(t, err)
		require.Len(t, s, 10)
	})

	t.Run("refuses a line without elevation or length", func(t *testing.T) {
		t.Parallel()
		pts := climb()
		pts[3].HasEle = false
		_, err := routesvg.Reduce(pts, 100)
		require.ErrorIs(t, err, routesvg.ErrNoElevation)
		_, err = routesvg.Reduce(pts[:1], 100)
		require.ErrorIs(t, err, routesvg.ErrTooShort)
		p := route.Point{Lat: 1, Lon: 1, HasEle: true}
		_, err = routesvg.Reduce([]route.Point{p, p}, 100)
		require.ErrorIs(t, err, routesvg.ErrTooShort)
	})
}

func TestSVG(t *testing.T) {
	t.Parallel()

	t.Run("is well-formed XML with the escaped title, labels and a bounded size", func(t *testing.T) {
		t.Parallel()
		svg, err := routesvg.Profile(climb(), routesvg.ProfileOptions{Title: `Day 1 <script>alert("x")</script> & co`, ID: "d1\"><x",
			Marks: []float64{50000}, MarkLabels: []string{"<2>"}})
		require.NoError(t, err)
		doc := string(svg)
		require.True(t, strings.HasPrefix(doc, `<svg xmlns="http://www.w3.org/2000/svg"`))
		require.NotContains(t, doc, "<script")
		require.Contains(t, doc, "&lt;script&gt;")
		require.Contains(t, doc, `id="d1x-t"`, "ids keep only safe characters")
		require.Contains(t, doc, "&lt;2&gt;")
		require.Contains(t, doc, ">1250 m<", "the axis top rounds the summit up to 50 m")
		require.Contains(t, doc, ">100 km<")
		require.Less(t, len(svg), 12000)

		dec := xml.NewDecoder(bytes.NewReader(svg))
		var title string
		inTitle := false
		for {
			tok, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			switch v := tok.(type) {
			case xml.StartElement:
				inTitle = v.Name.Local == "title"
			case xml.CharData:
				if inTitle {
					title += string(v)
				}
			case xml.EndElement:
				inTitle = false
			}
		}
		require.Equal(t, `Day 1 <script>alert("x")</script> & co`, title)
	})

	t.Run("does not grow with the input beyond the sample budget", func(t *testing.T) {
		t.Parallel()
		long := climb()
		small, err := routesvg.Profile(long[:2001], routesvg.ProfileOptions{Samples: 120})
		require.NoError(t, err)
		big, err := routesvg.Profile(long, routesvg.ProfileOptions{Samples: 120})
		require.NoError(t, err)
		require.InDelta(t, len(small), len(big), float64(len(small))/4)
	})

	t.Run("a flat line gets a 200 m axis rather than an exaggerated one", func(t *testing.T) {
		t.Parallel()
		pts := climb()[:500]
		for i := range pts {
			pts[i].Ele = 12
		}
		svg, err := routesvg.Profile(pts, routesvg.ProfileOptions{})
		require.NoError(t, err)
		require.Contains(t, string(svg), ">200 m<")
		require.Contains(t, string(svg), ">0 m<")
	})

	t.Run("refuses a line without elevation", func(t *testing.T) {
		t.Parallel()
		pts := climb()
		pts[0].HasEle = false
		_, err := routesvg.Profile(pts, routesvg.ProfileOptions{})
		require.ErrorIs(t, err, routesvg.ErrNoElevation)
	})
}

func TestOutline(t *testing.T) {
	t.Parallel()
	t.Run("a route is drawn as one path with its start, day ends and finish marked, its title escaped", func(t *testing.T) {
		t.Parallel()
		line := climb()
		ends := []route.Point{line[3000], line[6000], line[len(line)-1]}
		svg := routesvg.Outline(line, ends, `Oslo <b>& co`)
		require.NotNil(t, svg)
		require.True(t, bytes.HasPrefix(svg, []byte(`<svg xmlns="http://www.w3.org/2000/svg"`)))
		require.Contains(t, string(svg), `<title>Oslo &lt;b&gt;&amp; co</title>`)
		require.Equal(t, 1, strings.Count(string(svg), "<path "))
		require.Equal(t, 2, strings.Count(string(svg), `r="3"`), "the two day ends before the finish")
		require.Contains(t, string(svg), "<title>Start</title>")
		require.Contains(t, string(svg), "<title>Finish</title>")
		require.NoError(t, xml.Unmarshal(svg, new(struct{})), "well-formed XML")
	})
	t.Run("a route of one point has no outline", func(t *testing.T) {
		t.Parallel()
		require.Nil(t, routesvg.Outline(climb()[:1], nil, "x"))
	})
	t.Run("the outline's size does not grow with the route", func(t *testing.T) {
		t.Parallel()
		long := append(climb(), climb()...)
		require.Less(t, len(routesvg.Outline(long, nil, "x")), 12_000)
	})
}
