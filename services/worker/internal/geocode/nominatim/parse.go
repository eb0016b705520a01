package nominatim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/roadbook/roadbook/services/worker/internal/geocode"
)

// result is the part of a jsonv2 search or reverse object we read. lat/lon
// arrive as strings; name is absent on older servers and null on some
// reverse results, hence the fallbacks in placeName.
type result struct {
	Lat         string            `json:"lat"`
	Lon         string            `json:"lon"`
	Name        *string           `json:"name"`
	DisplayName string            `json:"display_name"`
	Category    string            `json:"category"`
	Type        string            `json:"type"`
	Address     map[string]string `json:"address"`
	Error       json.RawMessage   `json:"error"`
}

// errBadBody marks a 200 response that is not the documented JSON; the
// client reports it as the provider being unavailable rather than as "no
// result", so a misbehaving instance is noticed.
var errBadBody = fmt.Errorf("%w: nominatim answered 200 with a body that is not jsonv2", geocode.ErrUnavailable)

// parseSearch reads a /search?format=jsonv2 body.
func parseSearch(body []byte) ([]geocode.Place, error) {
	var rs []result
	if err := json.Unmarshal(body, &rs); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadBody, err)
	}
	out := make([]geocode.Place, 0, len(rs))
	for _, r := range rs {
		p, err := r.place(searchName(r))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// parseReverse reads a /reverse?format=jsonv2 body. {"error":…} with 200 is
// Nominatim's "nothing here" and becomes ErrNoPlace, as does an address with
// no settlement (DOMAIN §7: name = city ?? town ?? village ?? hamlet ??
// municipality).
func parseReverse(body []byte) (geocode.Place, error) {
	var r result
	if err := json.Unmarshal(bytes.TrimSpace(body), &r); err != nil {
		return geocode.Place{}, fmt.Errorf("%w: %v", errBadBody, err)
	}
	if len(r.Error) > 0 {
		return geocode.Place{}, geocode.ErrNoPlace
	}
	name := ""
	for _, k := range []string{"city", "town", "village", "hamlet", "municipality"} {
		if v := strings.TrimSpace(r.Address[k]); v != "" {
			name = v
			break
		}
	}
	if name == "" {
		return geocode.Place{}, geocode.ErrNoPlace
	}
	return r.place(name)
}

// searchName is the short name of a search hit: name when the server sends
// one, else the address part named after the hit's category (tourism →
// "Elbphilharmonie"), else the first part of display_name.
func searchName(r result) string {
	if r.Name != nil && strings.TrimSpace(*r.Name) != "" {
		return strings.TrimSpace(*r.Name)
	}
	if v := strings.TrimSpace(r.Address[r.Category]); v != "" {
		return v
	}
	if v := strings.TrimSpace(r.Address[r.Type]); v != "" {
		return v
	}
	first, _, _ := strings.Cut(r.DisplayName, ",")
	return strings.TrimSpace(first)
}

func (r result) place(name string) (geocode.Place, error) {
	lat, err1 := strconv.ParseFloat(r.Lat, 64)
	lon, err2 := strconv.ParseFloat(r.Lon, 64)
	if err1 != nil || err2 != nil {
		return geocode.Place{}, fmt.Errorf("%w: lat %q / lon %q are not numbers", errBadBody, r.Lat, r.Lon)
	}
	return geocode.Place{Name: name, Lat: lat, Lon: lon, DisplayName: r.DisplayName, Type: r.Type}, nil
}
