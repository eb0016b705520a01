package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// DefaultOpenMeteoBaseURL is the public Open-Meteo forecast API.
const DefaultOpenMeteoBaseURL = "https://api.open-meteo.com"

// openMeteoDaily are the daily variables read (Open-Meteo names).
const openMeteoDaily = "temperature_2m_max,wind_speed_10m_max,wind_direction_10m_dominant,relative_humidity_2m_mean,precipitation_probability_max"

// OpenMeteo reads daily forecasts from Open-Meteo's /v1/forecast.
type OpenMeteo struct {
	c *upstream.Client
}

// NewOpenMeteo wraps a configured upstream client.
func NewOpenMeteo(c *upstream.Client) (*OpenMeteo, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: open-meteo: nil client", upstream.ErrInvalidOption)
	}
	return &OpenMeteo{c: c}, nil
}

// Daily returns the forecast at p for the civil day date, and false when
// the answer has no value for that day (beyond the forecast horizon).
func (m *OpenMeteo) Daily(ctx context.Context, p route.Point, date time.Time) (alert.Weather, bool, error) {
	day := date.Format(time.DateOnly)
	resp, err := m.c.Do(ctx, upstream.Request{Path: "/v1/forecast", Query: url.Values{
		"latitude": {coord(p.Lat)}, "longitude": {coord(p.Lon)},
		"daily": {openMeteoDaily}, "timezone": {"auto"}, "wind_speed_unit": {"kmh"},
		"start_date": {day}, "end_date": {day},
	}})
	if err != nil {
		return alert.Weather{}, false, err
	}
	var doc struct {
		Daily struct {
			Time []string   `json:"time"`
			Temp []*float64 `json:"temperature_2m_max"`
			Wind []*float64 `json:"wind_speed_10m_max"`
			Dir  []*float64 `json:"wind_direction_10m_dominant"`
			Hum  []*float64 `json:"relative_humidity_2m_mean"`
			Rain []*float64 `json:"precipitation_probability_max"`
		} `json:"daily"`
	}
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		return alert.Weather{}, false, fmt.Errorf("%w: open-meteo answer is not the documented JSON: %v", ErrBadAnswer, err)
	}
	d := doc.Daily
	for i, t := range d.Time {
		if t != day {
			continue
		}
		at := func(xs []*float64) (float64, bool) {
			if i < len(xs) && xs[i] != nil {
				return *xs[i], true
			}
			return 0, false
		}
		temp, ok1 := at(d.Temp)
		wind, ok2 := at(d.Wind)
		dir, ok3 := at(d.Dir)
		hum, _ := at(d.Hum)
		rain, _ := at(d.Rain)
		if !ok1 || !ok2 || !ok3 {
			return alert.Weather{}, false, nil
		}
		return alert.Weather{TemperatureC: temp, WindKmh: wind, WindFromDeg: dir, HumidityPct: hum, RainProbabilityPct: rain}, true, nil
	}
	return alert.Weather{}, false, nil
}
