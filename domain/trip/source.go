package trip

import (
	"regexp"
	"strings"
)

// SourceKind names the third-party service a URL-created trip's route comes
// from (DOMAIN §2).
type SourceKind string

// The accepted source kinds.
const (
	SourceKomootTour       SourceKind = "komoot_tour"
	SourceKomootCollection SourceKind = "komoot_collection"
	SourceStravaRoute      SourceKind = "strava_route"
	SourceRideWithGPSRoute SourceKind = "ridewithgps_route"
)

// MaxSourceURLBytes bounds a source URL (the event keeps it for display).
const MaxSourceURLBytes = 2048

// Source is where a trip's route comes from: a URL with its kind and numeric
// id, or an upload with its route hash. Only the id of a URL is ever used to
// build a request (the SSRF rule): the user's URL never chooses the host.
type Source struct {
	// Kind is set for URL sources, empty for uploads.
	Kind SourceKind
	// ID is the numeric id matched by the anchored pattern.
	ID string
	// URL is the link as given.
	URL string
	// Upload describes an uploaded GPX; nil for URL sources.
	Upload *UploadSource
}

// UploadSource is an uploaded GPX document, parsed and stored before the trip
// existed.
type UploadSource struct {
	// RouteHash is the hex SHA-256 of the route's binary point encoding.
	RouteHash string
	// Filename as uploaded (display only).
	Filename string
	// SizeBytes of the document (≤ 30 MiB).
	SizeBytes int64
}

// The anchored patterns of DOMAIN §2. Roadbook also requires the id to end
// at a path, query or fragment boundary, so "tour/12abc" is refused rather
// than silently read as tour 12.
var sourcePatterns = []struct {
	kind SourceKind
	re   *regexp.Regexp
}{
	{SourceKomootTour, regexp.MustCompile(`^https://www\.komoot\.com/(?:[a-z]{2}-[a-z]{2}/)?tour/(\d{1,20})(?:[/?#]|$)`)},
	{SourceKomootCollection, regexp.MustCompile(`^https://www\.komoot\.com/(?:[a-z]{2}-[a-z]{2}/)?collection/(\d{1,20})(?:[/?#]|$)`)},
	{SourceStravaRoute, regexp.MustCompile(`^https://www\.strava\.com/routes/(\d{1,20})(?:[/?#]|$)`)},
	{SourceRideWithGPSRoute, regexp.MustCompile(`^https://ridewithgps\.com/routes/(\d{1,20})(?:[/?#]|$)`)},
}

// ParseSourceURL classifies a route link by the anchored patterns of DOMAIN §2
// and extracts its numeric id. Anything else is ErrUnsupportedSourceURL.
func ParseSourceURL(raw string) (Source, error) {
	if len(raw) > MaxSourceURLBytes {
		return Source{}, refuseURL("is longer than 2048 bytes")
	}
	if strings.ContainsAny(raw, " \t\r\n\\") {
		return Source{}, refuseURL("contains whitespace or backslashes")
	}
	for _, p := range sourcePatterns {
		if m := p.re.FindStringSubmatch(raw); m != nil {
			return Source{Kind: p.kind, ID: m[1], URL: raw}, nil
		}
	}
	return Source{}, refuseURL("must be a Komoot tour or collection, a Strava route or a RideWithGPS route link (https)")
}

// refuseURL builds the named unsupported-URL refusal with a message.
func refuseURL(msg string) *Error {
	e := *ErrUnsupportedSourceURL
	e.Message = msg
	return &e
}
