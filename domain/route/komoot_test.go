package route

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadKomootPage(t *testing.T) {
	t.Parallel()

	page := readFixture(t, "komoot/tour_1234567890.html")

	t.Run("the tour page gives its coordinates and title", func(t *testing.T) {
		t.Parallel()
		got, err := ReadKomootPage(page)
		require.NoError(t, err)
		require.Equal(t, "Oslo → Mjøsa: «første etappe»", got.Title)
		require.Equal(t, SourceKomoot, got.Source)
		require.True(t, got.ElevationKnown)
		require.Len(t, got.Points, 400)
		// The synthesized page holds the first 400 points of the Oslo fixture.
		oslo, err := ReadGPX(bytes.NewReader(readFixture(t, "gpx/long_brouter_oslo-trondheim_fastbike.gpx")))
		require.NoError(t, err)
		require.Equal(t, oslo.Points[:400], got.Points)
	})
	t.Run("an item without alt makes the elevation unknown", func(t *testing.T) {
		t.Parallel()
		doc := bytes.Replace(page, []byte(`,\"alt\":22.75`), nil, 1)
		require.NotEqual(t, page, doc)
		got, err := ReadKomootPage(doc)
		require.NoError(t, err)
		require.False(t, got.ElevationKnown)
		require.False(t, got.Points[0].HasEle)
	})

	refusals := []struct {
		name string
		page []byte
		kind error
		msg  string
	}{
		{"latitude 91", bytes.Replace(page, []byte(`\"lat\":59.906527`), []byte(`\"lat\":91`), 1), ErrCoordinate, "coordinates.items[1]: latitude 91 is outside"},
		{"longitude -181", bytes.Replace(page, []byte(`\"lng\":10.770012`), []byte(`\"lng\":-181`), 1), ErrCoordinate, "items[1]: longitude -181"},
		{"a missing lat", bytes.Replace(page, []byte(`\"lat\":59.906527,`), nil, 1), ErrCoordinate, "items[1] has no lat"},
		{"a missing lng", bytes.Replace(page, []byte(`,\"lng\":10.770012`), nil, 1), ErrCoordinate, "items[1] has no lng"},
		{"a string latitude", bytes.Replace(page, []byte(`\"lat\":59.906527`), []byte(`\"lat\":\"x\"`), 1), ErrMalformed, "want float64"},
		{"no setProps call", []byte("<html><body>Komoot</body></html>"), ErrNotFound, "no kmtBoot.setProps"},
		{"an unclosed string literal", []byte(`kmtBoot.setProps("{\"page\":{}`), ErrMalformed, "not closed"},
		{"a non-string argument", []byte(`kmtBoot.setProps({page: 1});`), ErrMalformed, "not a string literal"},
		{"broken JSON", []byte(`kmtBoot.setProps("{\"page\":");`), ErrMalformed, "JSON"},
		{"no tour", []byte(`kmtBoot.setProps("{\"page\":{\"_embedded\":{}}}");`), ErrNotFound, "no page._embedded.tour"},
		{"no coordinates", []byte(`kmtBoot.setProps("{\"page\":{\"_embedded\":{\"tour\":{\"name\":\"x\"}}}}");`), ErrNotFound, "no _embedded.coordinates"},
		{"empty coordinates", []byte(`kmtBoot.setProps("{\"page\":{\"_embedded\":{\"tour\":{\"_embedded\":{\"coordinates\":{\"items\":[]}}}}}}");`), ErrEmptyRoute, "empty"},
		{"more than 30 MiB", append(bytes.Repeat([]byte(" "), MaxKomootPageBytes), page...), ErrTooLarge, "30 MiB"},
	}
	for _, tc := range refusals {
		t.Run("a page with "+tc.name+" is refused", func(t *testing.T) {
			t.Parallel()
			_, err := ReadKomootPage(tc.page)
			require.ErrorIs(t, err, tc.kind)
			var re *ReadError
			require.ErrorAs(t, err, &re)
			require.Equal(t, "komoot", re.Format)
			require.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestReadKomootCollection(t *testing.T) {
	t.Parallel()

	page := readFixture(t, "komoot/collection_987654.html")

	t.Run("the collection lists its tours in order, once each, without highlights", func(t *testing.T) {
		t.Parallel()
		got, err := ReadKomootCollection(page)
		require.NoError(t, err)
		require.Equal(t, &KomootCollection{
			Name: "Oslo to Trondheim in 7 days",
			Tours: []KomootTourRef{
				{ID: "1234567890", Name: "Day 1: Oslo → Mjøsa"},
				{ID: "1234567891", Name: "Day 2: Mjøsa → Lillehammer"},
				{ID: "1234567892", Name: "Day 3 (ridden)"},
			},
		}, got)
	})
	t.Run("a tour page is not a collection", func(t *testing.T) {
		t.Parallel()
		_, err := ReadKomootCollection(readFixture(t, "komoot/tour_1234567890.html"))
		require.ErrorIs(t, err, ErrNotFound)
	})
	t.Run("a non-numeric tour id is refused", func(t *testing.T) {
		t.Parallel()
		doc := bytes.Replace(page, []byte(`\"id\":\"1234567891\"`), []byte(`\"id\":\"..\/..\/admin\"`), 1)
		_, err := ReadKomootCollection(doc)
		require.ErrorIs(t, err, ErrMalformed)
		require.ErrorContains(t, err, "not a tour number")
	})
	t.Run("a collection of highlights only is empty", func(t *testing.T) {
		t.Parallel()
		doc := strings.ReplaceAll(string(page), `tour_planned`, `highlight`)
		doc = strings.ReplaceAll(doc, `tour_recorded`, `highlight`)
		_, err := ReadKomootCollection([]byte(doc))
		require.ErrorIs(t, err, ErrEmptyRoute)
	})
}

func TestUnescapeJSString(t *testing.T) {
	t.Parallel()

	cases := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`'single \' quote'`, "single ' quote"},
		{`"a\"b\\c\/d"`, `a"b\c/d`},
		{`"\n\t\r\b\f\v\0"`, "\n\t\r\b\f\v\x00"},
		{`"\x41\u00e9\u2192"`, "Aé→"},
		{`"\ud83d\udeb2 bike"`, "🚲 bike"},
		{`"\u{1F6B2}"`, "🚲"},
		{"\"line\\\ncontinued\"", "linecontinued"},
		{`"unknown \q escape"`, "unknown q escape"},
	}
	for _, tc := range cases {
		t.Run("the literal "+tc.in+" unescapes", func(t *testing.T) {
			t.Parallel()
			got, err := unescapeJSString([]byte(tc.in + " trailing"))
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}
	for _, bad := range []string{`"\x4"`, `"\u12"`, `"\u{110000}"`, "\"a\nb\"", `"open`} {
		t.Run("the literal "+bad+" is refused", func(t *testing.T) {
			t.Parallel()
			_, err := unescapeJSString([]byte(bad))
			require.Error(t, err)
		})
	}
}
