package route

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// gpxExpect is what reading one fixture must give: a route, or a named error.
type gpxExpect struct {
	points    int
	source    Source
	title     string
	eleKnown  bool
	waypoints int

	err  error // sentinel when the file must be refused
	line int   // line the error must name (0: any line ≥ 1)
}

// gpxFixtures lists every GPX file under testdata/gpx and testdata/gpx-edge
// (a .gz one is read gunzipped; licence files beside them are not fixtures);
// TestReadGPXFixtures fails if a file there has no entry here.
var gpxFixtures = map[string]gpxExpect{
	"gpx/long_brouter_oslo-trondheim_fastbike.gpx":                 {points: 17895, source: SourceGPXTrack, title: "brouter_fastbike_0", eleKnown: true, waypoints: 22},
	"gpx/ors_via-aurelia_roma-ventimiglia.gpx.gz":                  {points: 14564, source: SourceGPXTrack, title: "via-aurelia.gpx", eleKnown: true},
	"gpx/ors_giro-passi-svizzeri.gpx.gz":                           {points: 10834, source: SourceGPXTrack, title: "Giro Passi Svizzeri 2025", eleKnown: true},
	"gpx/brouter_car-test-route_oslo-rondane.gpx.gz":               {points: 8157, source: SourceGPXTrack, title: "brouter_car-vario_0", eleKnown: true, waypoints: 4},
	"gpx/brouter_rondanestien_trekking.gpx.gz":                     {points: 5127, source: SourceGPXTrack, title: "brouter_trekking_0", eleKnown: false, waypoints: 18},
	"gpx/multi_cerknicko-jezero_8tracks_gpx10.gpx":                 {points: 296, source: SourceGPXTrack, title: "ACTIVE LOG", eleKnown: true, waypoints: 7},
	"gpx/multi_gpxstudio_with_tracks_and_segments.gpx":             {points: 79, source: SourceGPXTrack, title: "track 1", eleKnown: true},
	"gpx/rte-only_drei-gipfel-lauf.gpx":                            {points: 2421, source: SourceGPXRoute, title: "Drei Gipfel Lauf", eleKnown: true},
	"gpx/rte-only_gpxstudio_with_routes.gpx":                       {points: 77, source: SourceGPXRoute, title: "route 1", eleKnown: true},
	"gpx-edge/dost_garmin-connect_no-ele_9266323613.gpx":           {points: 385, source: SourceGPXTrack, title: "Sankt Ulrich am Pillersee SUP", eleKnown: false},
	"gpx-edge/dost_sample_broken_1.gpx":                            {points: 1, source: SourceGPXTrack, eleKnown: true},
	"gpx-edge/gpxgo_gpx-without-root-attributes.gpx":               {points: 1, source: SourceGPXTrack, eleKnown: true},
	"gpx-edge/gpxgo_gpx-without-xml-declaration.gpx":               {points: 1, source: SourceGPXTrack, eleKnown: true},
	"gpx-edge/gpxgo_iso8859-1encoded.gpx":                          {err: ErrEmptyRoute}, // waypoints only
	"gpx-edge/gpxpy_gpx-with-node-with-comments.gpx":               {points: 1, source: SourceGPXTrack, title: "2014-05-06_132925", eleKnown: true},
	"gpx-edge/gpxpy_gpx1.0_with_all_fields.gpx":                    {points: 1, source: SourceGPXTrack, title: "example name t", eleKnown: true, waypoints: 2},
	"gpx-edge/gpxpy_gpx1.1_with_all_fields.gpx":                    {points: 1, source: SourceGPXTrack, title: "example name t", eleKnown: true, waypoints: 2},
	"gpx-edge/gpxpy_gpx1.1_with_extensions_without_namespaces.gpx": {err: ErrEmptyRoute},
	"gpx-edge/gpxpy_korita-zbevnica.gpx":                           {points: 871, source: SourceGPXTrack, title: "03-OCT-10", eleKnown: true, waypoints: 2},
	"gpx-edge/gpxpy_track-with-empty-segment.gpx":                  {points: 9, source: SourceGPXTrack, title: "2013-07-06T14:59:00Z", eleKnown: true},
	"gpx-edge/gpxpy_track-with-small-floats.gpx":                   {points: 3, source: SourceGPXTrack, title: "Untitled Path", eleKnown: true},
	"gpx-edge/gpxpy_unicode_with_bom.gpx":                          {err: ErrEmptyRoute}, // one wpt
	"gpx-edge/inline_gpxgo_ERRgpx-broken-root-1901-time.gpx":       {err: ErrMalformed, line: 2},
	"gpx-edge/inline_gpxpy-gpxgo_unclosed-root.gpx":                {err: ErrMalformed, line: 1},
	"gpx-edge/inline_gpxpy_wrong-root-kml.gpx":                     {err: ErrNotGPX, line: 1},
}

// readFixture returns the fixture's GPX document, gunzipped when its name
// ends in .gz (the real routes kept compressed, testdata/SOURCES.md).
func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(name)))
	require.NoError(t, err)
	if strings.HasSuffix(name, ".gz") {
		gz, err := gzip.NewReader(bytes.NewReader(b))
		require.NoError(t, err)
		b, err = io.ReadAll(gz)
		require.NoError(t, err)
	}
	return b
}

func TestReadGPXFixtures(t *testing.T) {
	t.Parallel()

	all, err := filepath.Glob("testdata/gpx*/*")
	require.NoError(t, err)
	var files []string
	for _, f := range all {
		if !strings.HasPrefix(filepath.Base(f), "LICENSE.") {
			files = append(files, f)
		}
	}
	require.Len(t, files, len(gpxFixtures), "every fixture file has an expectation and vice versa")

	for _, f := range files {
		name := filepath.ToSlash(strings.TrimPrefix(f, "testdata"+string(filepath.Separator)))
		want, ok := gpxFixtures[name]
		require.True(t, ok, "no expectation for %s", name)

		t.Run(name+" reads as expected", func(t *testing.T) {
			t.Parallel()
			data := readFixture(t, name)
			got, err := ReadGPX(bytes.NewReader(data))
			if want.err != nil {
				require.ErrorIs(t, err, want.err)
				var re *ReadError
				require.ErrorAs(t, err, &re)
				require.GreaterOrEqual(t, re.Line, 1, "the error names a line")
				if want.line > 0 {
					require.Equal(t, want.line, re.Line, "error: %v", err)
				}
				require.Contains(t, err.Error(), "gpx line ")
				return
			}
			require.NoError(t, err)
			require.Len(t, got.Points, want.points)
			require.Equal(t, want.source, got.Source)
			require.Equal(t, want.title, got.Title)
			require.Equal(t, want.eleKnown, got.ElevationKnown)
			require.Len(t, got.Waypoints, want.waypoints)
		})
	}
}

// refGPX is encoding/xml's view of the same documents: the differential
// oracle for coordinates and elevations.
type refGPX struct {
	Trk []struct {
		Seg []struct {
			Pt []refPt `xml:"trkpt"`
		} `xml:"trkseg"`
	} `xml:"trk"`
	Rte []struct {
		Pt []refPt `xml:"rtept"`
	} `xml:"rte"`
}

type refPt struct {
	Lat float64  `xml:"lat,attr"`
	Lon float64  `xml:"lon,attr"`
	Ele *float64 `xml:"ele"`
}

func TestReadGPXMatchesEncodingXML(t *testing.T) {
	t.Parallel()

	for name, want := range gpxFixtures {
		if want.err != nil {
			continue
		}
		t.Run(name+" gives the same points as encoding/xml", func(t *testing.T) {
			t.Parallel()
			data := readFixture(t, name)
			var ref refGPX
			require.NoError(t, xml.Unmarshal(data, &ref))
			var refPts []refPt
			for _, trk := range ref.Trk {
				for _, seg := range trk.Seg {
					refPts = append(refPts, seg.Pt...)
				}
			}
			if len(refPts) == 0 {
				for _, rte := range ref.Rte {
					refPts = append(refPts, rte.Pt...)
				}
			}
			got, err := ReadGPX(bytes.NewReader(data))
			require.NoError(t, err)
			require.Len(t, got.Points, len(refPts))
			for i, rp := range refPts {
				p := got.Points[i]
				require.Equal(t, rp.Lat, p.Lat, "point %d lat", i)
				require.Equal(t, rp.Lon, p.Lon, "point %d lon", i)
				require.Equal(t, rp.Ele != nil, p.HasEle, "point %d has ele", i)
				if rp.Ele != nil {
					require.Equal(t, *rp.Ele, p.Ele, "point %d ele", i)
				}
			}
		})
	}
}

func TestReadGPXStreaming(t *testing.T) {
	t.Parallel()

	data := readFixture(t, "gpx/long_brouter_oslo-trondheim_fastbike.gpx")
	whole, err := ReadGPX(bytes.NewReader(data))
	require.NoError(t, err)

	t.Run("one byte at a time gives the same route", func(t *testing.T) {
		t.Parallel()
		got, err := ReadGPX(iotest.OneByteReader(bytes.NewReader(data)))
		require.NoError(t, err)
		require.Equal(t, whole, got)
	})
	t.Run("a reader returning data with io.EOF gives the same route", func(t *testing.T) {
		t.Parallel()
		got, err := ReadGPX(iotest.DataErrReader(iotest.HalfReader(bytes.NewReader(data))))
		require.NoError(t, err)
		require.Equal(t, whole, got)
	})
	t.Run("a failing reader's error is returned, not hidden", func(t *testing.T) {
		t.Parallel()
		boom := errors.New("disk on fire")
		_, err := ReadGPX(io.MultiReader(bytes.NewReader(data[:5000]), iotest.ErrReader(boom)))
		require.ErrorIs(t, err, boom)
	})
	t.Run("the Oslo route starts and ends where BRouter says", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, Point{Lat: 59.906353, Lon: 10.769927, Ele: 22.75, HasEle: true}, whole.Points[0])
		require.Equal(t, Point{Lat: 63.426886, Lon: 10.395518, Ele: 13.5, HasEle: true}, whole.Points[len(whole.Points)-1])
		require.Equal(t, "Main Rest 1 (28,24 km)", whole.Waypoints[0].Name)
		require.Equal(t, 60.017116, whole.Waypoints[0].Lat)
	})
}

// lineOf returns the 1-based line of byte offset off in b.
func lineOf(b []byte, off int) int { return bytes.Count(b[:off], []byte{'\n'}) + 1 }

// substitute replaces the n-th (0-based) occurrence of old in b and returns
// the new document and the line of the replacement.
func substitute(t *testing.T, b []byte, old, repl string, n int) ([]byte, int) {
	t.Helper()
	off := 0
	for i := 0; ; i++ {
		j := bytes.Index(b[off:], []byte(old))
		require.GreaterOrEqual(t, j, 0, "occurrence %d of %q", n, old)
		if i == n {
			off += j
			break
		}
		off += j + len(old)
	}
	out := append(append(append([]byte{}, b[:off]...), repl...), b[off+len(old):]...)
	return out, lineOf(b, off)
}

func TestReadGPXRefusesBadCoordinates(t *testing.T) {
	t.Parallel()

	base := readFixture(t, "gpx/multi_gpxstudio_with_tracks_and_segments.gpx")
	// The 40th track point's attributes, found by text and replaced.
	tag := `<trkpt lat="`
	cases := []struct {
		name, repl string
		reason     string
	}{
		{"latitude 91", `<trkpt lat="91" data-was="`, "latitude 91 is outside -90..90"},
		{"latitude -90.0000001", `<trkpt lat="-90.0000001" data-was="`, "outside -90..90"},
		{"latitude NaN", `<trkpt lat="NaN" data-was="`, `"NaN" is not a finite number`},
		{"latitude Inf", `<trkpt lat="+Inf" data-was="`, `"+Inf" is not a finite number`},
		{"latitude text", `<trkpt lat="north" data-was="`, `"north" is not a number`},
		{"latitude hex float", `<trkpt lat="0x1p-2" data-was="`, `is not a number`},
		{"a sign for a latitude", `<trkpt lat="-" data-was="`, `"-" is not a number`},
		{"a point for a latitude", `<trkpt lat=" . " data-was="`, `"." is not a number`},
		{"a sign and a point for a latitude", `<trkpt lat="+." data-was="`, `"+." is not a number`},
		{"missing latitude", `<trkpt data-was="`, "has no lat attribute"},
		{"empty latitude", `<trkpt lat="" data-was="`, "empty value"},
	}
	for _, tc := range cases {
		t.Run("a track point with "+tc.name+" is refused naming its line", func(t *testing.T) {
			t.Parallel()
			doc, line := substitute(t, base, tag, tc.repl, 40)
			_, err := ReadGPX(bytes.NewReader(doc))
			require.ErrorIs(t, err, ErrCoordinate)
			var re *ReadError
			require.ErrorAs(t, err, &re)
			require.Equal(t, line, re.Line)
			require.Contains(t, re.Reason, tc.reason)
		})
	}

	t.Run("a track point with longitude 181 is refused naming its line", func(t *testing.T) {
		t.Parallel()
		doc, line := substitute(t, base, `" lon="`, `" lon="181" data-was="`, 40)
		_, err := ReadGPX(bytes.NewReader(doc))
		require.ErrorIs(t, err, ErrCoordinate)
		require.ErrorContains(t, err, "longitude 181 is outside -180..180")
		require.Equal(t, line, err.(*ReadError).Line)
	})
	t.Run("a missing longitude is refused", func(t *testing.T) {
		t.Parallel()
		doc, line := substitute(t, base, `" lon="`, `" data-lon="`, 7)
		_, err := ReadGPX(bytes.NewReader(doc))
		require.ErrorIs(t, err, ErrCoordinate)
		require.ErrorContains(t, err, "has no lon attribute")
		require.Equal(t, line, err.(*ReadError).Line)
	})
	t.Run("an elevation that is not a number is refused naming its line", func(t *testing.T) {
		t.Parallel()
		doc, line := substitute(t, base, `<ele>`, `<ele>NaN`, 12)
		_, err := ReadGPX(bytes.NewReader(doc))
		require.ErrorIs(t, err, ErrCoordinate)
		require.Equal(t, line, err.(*ReadError).Line)
	})
	t.Run("an elevation of 100 km is refused", func(t *testing.T) {
		t.Parallel()
		doc, _ := substitute(t, base, `<ele>`, `<ele>100000`, 3)
		_, err := ReadGPX(bytes.NewReader(doc))
		require.ErrorIs(t, err, ErrCoordinate)
		require.ErrorContains(t, err, "outside -1000..10000 m")
	})
	t.Run("the same attribute twice is malformed", func(t *testing.T) {
		t.Parallel()
		doc, line := substitute(t, base, tag, `<trkpt lat="1" lat="`, 2)
		_, err := ReadGPX(bytes.NewReader(doc))
		require.ErrorIs(t, err, ErrMalformed)
		require.Equal(t, line, err.(*ReadError).Line)
	})
	t.Run("a bad point after a multi-line comment and CDATA still names its own line", func(t *testing.T) {
		t.Parallel()
		doc, _ := substitute(t, base, `<trk>`, "<!--\n\n\n-->\n<trk><desc><![CDATA[a\nb\n]]></desc>", 0)
		doc, line := substitute(t, doc, tag, `<trkpt lat="91" data-was="`, 30)
		_, err := ReadGPX(bytes.NewReader(doc))
		require.ErrorIs(t, err, ErrCoordinate)
		require.Equal(t, line, err.(*ReadError).Line)
	})
}

func TestReadGPXRefusesMalformedXML(t *testing.T) {
	t.Parallel()

	const pt = `<trkpt lat="1" lon="2"/>`
	cases := []struct {
		name string
		doc  string
		kind error
		line int
		msg  string
	}{
		{"mismatched end tag", "<gpx>\n<trk>\n<trkseg>" + pt + "\n</trk>\n</gpx>", ErrMalformed, 4, "does not match <trkseg> opened on line 3"},
		{"unclosed root", "<gpx>\n<trk><trkseg>" + pt + "</trkseg></trk>\n", ErrMalformed, 3, "<gpx> opened on line 1 is not closed"},
		{"end tag without start", "<gpx></gpx>\n</trk>", ErrMalformed, 2, "without a start tag"},
		{"second root", "<gpx><trk><trkseg>" + pt + "</trkseg></trk></gpx>\n<gpx/>", ErrMalformed, 2, "second root"},
		{"text after root", "<gpx><trk><trkseg>" + pt + "</trkseg></trk></gpx>\n\nhello", ErrMalformed, 3, "text after the root"},
		{"unquoted attribute", "<gpx><trk><trkseg>\n<trkpt lat=1 lon=2/></trkseg></trk></gpx>", ErrMalformed, 2, "not quoted"},
		{"attribute without value", "<gpx><trk><trkseg>\n<trkpt lat lon=\"2\"/></trkseg></trk></gpx>", ErrMalformed, 2, "has no value"},
		{"attributes run together", "<gpx><trk><trkseg>\n<trkpt lat=\"1\"lon=\"2\"/></trkseg></trk></gpx>", ErrMalformed, 2, "not separated"},
		{"unterminated comment", "<gpx>\n<!-- open", ErrMalformed, 2, "unterminated comment"},
		{"unterminated CDATA", "<gpx><trk><name>\n<![CDATA[ open", ErrMalformed, 2, "unterminated CDATA"},
		{"undefined entity in a name", "<gpx><trk>\n<name>&xxe;</name><trkseg>" + pt + "</trkseg></trk></gpx>", ErrMalformed, 2, "undefined entity &xxe;"},
		{"bare ampersand in a name", "<gpx><trk>\n<name>A & B</name><trkseg>" + pt + "</trkseg></trk></gpx>", ErrMalformed, 2, "'&'"},
		{"lt inside a tag", "<gpx>\n<trk <trkseg>", ErrMalformed, 2, "'<' inside a tag"},
		{"invalid element name", "<gpx>\n<1trk/></gpx>", ErrMalformed, 2, "invalid element name"},
		{"empty document", "", ErrNotGPX, 1, "no root element"},
		{"only a declaration", "<?xml version=\"1.0\"?>\n", ErrNotGPX, 2, "no root element"},
		{"kml root", "<?xml version=\"1.0\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\"></kml>", ErrNotGPX, 2, "<kml>"},
		{"waypoints only", "<gpx>\n<wpt lat=\"1\" lon=\"2\"/>\n</gpx>", ErrEmptyRoute, 3, "1 waypoint"},
		{"UTF-16 byte-order mark", "\xff\xfe<\x00g\x00", ErrEncoding, 1, "UTF-16"},
		{"unknown encoding", "<?xml version=\"1.0\" encoding=\"EBCDIC-US\"?><gpx/>", ErrEncoding, 1, "EBCDIC-US"},
		{"BOM contradicting ISO-8859-1", "\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><gpx/>", ErrEncoding, 1, "contradicts"},
		{"nesting 300 deep", "<gpx>" + strings.Repeat("<x>", 300), ErrMalformed, 1, "deeper than 256"},
	}
	for _, tc := range cases {
		t.Run("a document with "+tc.name+" is refused", func(t *testing.T) {
			t.Parallel()
			_, err := ReadGPX(strings.NewReader(tc.doc))
			require.ErrorIs(t, err, tc.kind)
			var re *ReadError
			require.ErrorAs(t, err, &re)
			require.Equal(t, tc.line, re.Line, "error: %v", err)
			require.Contains(t, re.Reason, tc.msg)
		})
	}
}

func TestReadGPXAccepts(t *testing.T) {
	t.Parallel()

	t.Run("ISO-8859-1 names are decoded to UTF-8", func(t *testing.T) {
		t.Parallel()
		base := readFixture(t, "gpx-edge/gpxgo_iso8859-1encoded.gpx")
		doc, _ := substitute(t, base, "</gpx>",
			"<trk><name>Caf\xe9 Cr\xe8me &amp; Gl\xfchwein</name><trkseg>"+
				"<trkpt lat=\"44.25\" lon=\"20.55\"/><trkpt lat=\"44.26\" lon=\"20.56\"/></trkseg></trk></gpx>", 0)
		got, err := ReadGPX(bytes.NewReader(doc))
		require.NoError(t, err)
		require.Equal(t, "Café Crème & Glühwein", got.Title)
		require.Len(t, got.Points, 2)
		require.Len(t, got.Waypoints, 8)
		require.Equal(t, "1", got.Waypoints[0].Name)
		require.False(t, got.ElevationKnown, "no point has an elevation")
	})
	t.Run("a namespace prefix on every element is accepted", func(t *testing.T) {
		t.Parallel()
		doc := `<g:gpx xmlns:g="http://www.topografix.com/GPX/1/1"><g:trk><g:name>P</g:name><g:trkseg>` +
			`<g:trkpt lat="1.5" lon="2.5"><g:ele>3</g:ele></g:trkpt></g:trkseg></g:trk></g:gpx>`
		got, err := ReadGPX(strings.NewReader(doc))
		require.NoError(t, err)
		require.Equal(t, &Route{Title: "P", Points: []Point{{Lat: 1.5, Lon: 2.5, Ele: 3, HasEle: true}},
			ElevationKnown: true, Source: SourceGPXTrack}, got)
	})
	t.Run("entities and character references in a title are decoded", func(t *testing.T) {
		t.Parallel()
		doc := `<gpx><trk><name> A &amp; B &#233;&#x2192;&lt;C&gt; <![CDATA[&amp;]]></name><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>`
		got, err := ReadGPX(strings.NewReader(doc))
		require.NoError(t, err)
		require.Equal(t, "A & B é→<C> &amp;", got.Title)
	})
	t.Run("the metadata name is the title when the track has none", func(t *testing.T) {
		t.Parallel()
		doc := `<gpx><metadata><name>Meta</name></metadata><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>`
		got, err := ReadGPX(strings.NewReader(doc))
		require.NoError(t, err)
		require.Equal(t, "Meta", got.Title)
	})
	t.Run("some missing elevations make the elevation unknown", func(t *testing.T) {
		t.Parallel()
		doc := `<gpx><trk><trkseg><trkpt lat="1" lon="2"><ele>5</ele></trkpt><trkpt lat="1" lon="3"><ele> </ele></trkpt></trkseg></trk></gpx>`
		got, err := ReadGPX(strings.NewReader(doc))
		require.NoError(t, err)
		require.False(t, got.ElevationKnown)
		require.Equal(t, []Point{{Lat: 1, Lon: 2, Ele: 5, HasEle: true}, {Lat: 1, Lon: 3}}, got.Points)
	})
	t.Run("tracks win over routes and all segments are concatenated", func(t *testing.T) {
		t.Parallel()
		doc := `<gpx><rte><name>R</name><rtept lat="9" lon="9"/></rte>` +
			`<trk><trkseg><trkpt lat="1" lon="1"/></trkseg><trkseg/><trkseg><trkpt lat="2" lon="2"/></trkseg></trk>` +
			`<trk><name>second</name><trkseg><trkpt lat="3" lon="3"/></trkseg></trk></gpx>`
		got, err := ReadGPX(strings.NewReader(doc))
		require.NoError(t, err)
		require.Equal(t, SourceGPXTrack, got.Source)
		require.Equal(t, "second", got.Title, "the first trk/name, even on a later track")
		require.Equal(t, []Point{{Lat: 1, Lon: 1}, {Lat: 2, Lon: 2}, {Lat: 3, Lon: 3}}, got.Points)
	})
	t.Run("a trkpt outside a trkseg is not a track point", func(t *testing.T) {
		t.Parallel()
		doc := `<gpx><extensions><trkseg><trkpt lat="1" lon="1"/></trkseg></extensions></gpx>`
		_, err := ReadGPX(strings.NewReader(doc))
		require.ErrorIs(t, err, ErrEmptyRoute)
	})
}

func TestReadGPXSizeLimit(t *testing.T) {
	t.Parallel()

	data := readFixture(t, "gpx/long_brouter_oslo-trondheim_fastbike.gpx")
	t.Run("a file over the option's limit is refused", func(t *testing.T) {
		t.Parallel()
		_, err := ReadGPX(bytes.NewReader(data), WithMaxBytes(100_000))
		require.ErrorIs(t, err, ErrTooLarge)
		require.ErrorContains(t, err, "larger than the limit of 100000 bytes")
	})
	t.Run("a file exactly at the limit is read", func(t *testing.T) {
		t.Parallel()
		_, err := ReadGPX(bytes.NewReader(data), WithMaxBytes(int64(len(data))))
		require.NoError(t, err)
	})
	t.Run("an endless stream stops at the 30 MiB default", func(t *testing.T) {
		t.Parallel()
		endless := io.MultiReader(strings.NewReader("<gpx><desc>"), repeatReader('x'))
		_, err := ReadGPX(endless)
		require.ErrorIs(t, err, ErrTooLarge)
		require.ErrorContains(t, err, "30 MiB")
	})
}

// repeatReader is an endless stream of one byte.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
