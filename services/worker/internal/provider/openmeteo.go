package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/services/worker/internal/upstream"
)

// DefaultOpenMeteoBaseURL is the public Open-Meteo forecast API.
const DefaultOpenMeteoBaseURL = "https://api.open-meteo.com"

// DefaultOpenMeteoArchiveURL is the public Open-Meteo historical weather
// API (ERA5 reanalysis), where typical conditions beyond the forecast
// horizon come from.
const DefaultOpenMeteoArchiveURL = "https://archive-api.open-meteo.com"

// How far Open-Meteo forecasts and how typical conditions are built.
const (
	// ForecastHorizonDays: a date from today to today + 15 is forecast (the
	// API's 16 forecast days); later dates get typical conditions. Dates up
	// to PastDays before today are still on the forecast endpoint.
	ForecastHorizonDays = 16
	PastDays            = 90
	// TypicalYears: typical conditions average the same calendar days of
	// the last TypicalYears complete years…
	TypicalYears = 5
	// …within TypicalWindowDays on either side of the date (7 days a year,
	// 35 days in all).
	TypicalWindowDays = 3
	// typicalSpanDays bounds the dates one archive request spans: Open-Meteo
	// counts a request of up to two weeks for one place as one call, so a
	// trip's stages are grouped by two weeks and several places go in one
	// request (one call per place and year).
	typicalSpanDays = 14
)

// The daily variables read (Open-Meteo names).
const (
	forecastDaily = "temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max," +
		"wind_speed_10m_max,wind_direction_10m_dominant,relative_humidity_2m_mean"
	archiveDaily = "temperature_2m_max,temperature_2m_min,precipitation_sum," +
		"wind_speed_10m_max,wind_direction_10m_dominant,relative_humidity_2m_mean"
)

// OpenMeteo reads daily forecasts from Open-Meteo's /v1/forecast and, with
// an archive client, typical conditions from /v1/archive.
type OpenMeteo struct {
	c, archive *upstream.Client
	now        func() time.Time
}

// NewOpenMeteo wraps a configured upstream client for the forecast
// endpoint.
func NewOpenMeteo(c *upstream.Client) (*OpenMeteo, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: open-meteo: nil client", upstream.ErrInvalidOption)
	}
	return &OpenMeteo{c: c, now: time.Now}, nil
}

// WithArchive sets the historical weather endpoint's client, so dates
// beyond the forecast horizon get typical conditions; without it they get
// none.
func (m *OpenMeteo) WithArchive(c *upstream.Client) *OpenMeteo {
	m.archive = c
	return m
}

// WithClock sets where "today" comes from (tests; the default is the
// wall clock).
func (m *OpenMeteo) WithClock(now func() time.Time) *OpenMeteo {
	m.now = now
	return m
}

// Forecastable says whether date is on the forecast endpoint today: from
// PastDays ago to ForecastHorizonDays − 1 days ahead.
func (m *OpenMeteo) Forecastable(date time.Time) bool {
	y, mo, d := m.now().UTC().Date()
	today := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
	day := civil(date)
	return !day.Before(today.AddDate(0, 0, -PastDays)) && day.Before(today.AddDate(0, 0, ForecastHorizonDays))
}

// Daily returns the forecast at p for the civil day date, and false when
// the answer has no value for that day. It is Forecast mapped to the
// comfort rule's view.
func (m *OpenMeteo) Daily(ctx context.Context, p route.Point, date time.Time) (alert.Weather, bool, error) {
	w, ok, err := m.Forecast(ctx, p, date)
	if err != nil || !ok {
		return alert.Weather{}, ok, err
	}
	return alert.Weather{TemperatureC: w.TempMaxC, WindKmh: w.WindMaxKmh, WindFromDeg: w.WindFromDeg,
		HumidityPct: w.HumidityPct, RainProbabilityPct: w.PrecipProbabilityPct}, true, nil
}

// Forecast returns the day's forecast at p, and false when the answer has
// no value for that day (beyond what the model covers). Derived fields
// (headwind, comfort) are left to DayWeather.Finish.
func (m *OpenMeteo) Forecast(ctx context.Context, p route.Point, date time.Time) (alert.DayWeather, bool, error) {
	day := date.Format(time.DateOnly)
	resp, err := m.c.Do(ctx, upstream.Request{Path: "/v1/forecast", Query: url.Values{
		"latitude": {coord(p.Lat)}, "longitude": {coord(p.Lon)},
		"daily": {forecastDaily}, "timezone": {"auto"}, "wind_speed_unit": {"kmh"},
		"start_date": {day}, "end_date": {day},
	}})
	if err != nil {
		return alert.DayWeather{}, false, err
	}
	var doc openMeteoDoc
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		return alert.DayWeather{}, false, fmt.Errorf("%w: open-meteo answer is not the documented JSON: %v", ErrBadAnswer, err)
	}
	for i, t := range doc.Daily.Time {
		if t != day {
			continue
		}
		s, ok := doc.Daily.sample(i)
		if !ok {
			return alert.DayWeather{}, false, nil
		}
		prob, okProb := at(doc.Daily.Prob, i)
		if !okProb {
			prob = math.Min(100, s.PrecipitationMM*20) // the model gives none: 5 mm reads as certain rain
		}
		return alert.DayWeather{Lat: p.Lat, Lon: p.Lon, TempMinC: s.TempMinC, TempMaxC: s.TempMaxC,
			PrecipitationMM: s.PrecipitationMM, PrecipProbabilityPct: prob, WindMaxKmh: s.WindMaxKmh,
			WindFromDeg: s.WindFromDeg, HumidityPct: s.HumidityPct}, true, nil
	}
	return alert.DayWeather{}, false, nil
}

// WeatherAt is one place and date typical conditions are wanted for.
type WeatherAt struct {
	Point route.Point
	Date  time.Time
}

// Typical returns, for each request (by position), the conditions typical
// of its place and calendar date: the days within TypicalWindowDays of the
// date in each of the last TypicalYears complete years, averaged
// (alert.TypicalWeather). Requests are grouped into spans of at most two
// weeks, one archive request per group and year carrying every place of
// the group. A request with no data in the answer is left out.
func (m *OpenMeteo) Typical(ctx context.Context, reqs []WeatherAt) (map[int]alert.DayWeather, error) {
	if m.archive == nil {
		return nil, nil
	}
	out := map[int]alert.DayWeather{}
	samples := make([][]alert.WeatherSample, len(reqs))
	thisYear := m.now().UTC().Year()
	for _, g := range typicalGroups(reqs) {
		for y := thisYear - TypicalYears; y < thisYear; y++ {
			first, last := shiftYear(civil(reqs[g[0]].Date), y).AddDate(0, 0, -TypicalWindowDays), shiftYear(civil(reqs[g[len(g)-1]].Date), y).AddDate(0, 0, TypicalWindowDays)
			lats, lons := make([]string, len(g)), make([]string, len(g))
			for i, r := range g {
				lats[i], lons[i] = coord(reqs[r].Point.Lat), coord(reqs[r].Point.Lon)
			}
			resp, err := m.archive.Do(ctx, upstream.Request{Path: "/v1/archive", Query: url.Values{
				"latitude": {strings.Join(lats, ",")}, "longitude": {strings.Join(lons, ",")},
				"daily": {archiveDaily}, "timezone": {"auto"}, "wind_speed_unit": {"kmh"},
				"start_date": {first.Format(time.DateOnly)}, "end_date": {last.Format(time.DateOnly)},
			}})
			if err != nil {
				return nil, err
			}
			docs, err := parseOpenMeteoDocs(resp.Body, len(g))
			if err != nil {
				return nil, err
			}
			for i, r := range g {
				center := shiftYear(civil(reqs[r].Date), y)
				for j, t := range docs[i].Daily.Time {
					d, err := time.Parse(time.DateOnly, t)
					if err != nil || math.Abs(d.Sub(center).Hours()/24) > TypicalWindowDays {
						continue
					}
					if s, ok := docs[i].Daily.sample(j); ok {
						samples[r] = append(samples[r], s)
					}
				}
			}
		}
	}
	for i, r := range reqs {
		if w, ok := alert.TypicalWeather(samples[i], TypicalYears); ok {
			w.Lat, w.Lon = r.Point.Lat, r.Point.Lon
			out[i] = w
		}
	}
	return out, nil
}

// typicalGroups cuts the requests (by position) into runs in date order
// whose dates span at most typicalSpanDays with their windows.
func typicalGroups(reqs []WeatherAt) [][]int {
	idx := make([]int, len(reqs))
	for i := range idx {
		idx[i] = i
	}
	sortByDate := func(a, b int) int { return civil(reqs[a].Date).Compare(civil(reqs[b].Date)) }
	slices.SortStableFunc(idx, sortByDate)
	var out [][]int
	for _, i := range idx {
		if n := len(out); n > 0 {
			first := civil(reqs[out[n-1][0]].Date)
			if civil(reqs[i].Date).Sub(first).Hours()/24+2*TypicalWindowDays < typicalSpanDays {
				out[n-1] = append(out[n-1], i)
				continue
			}
		}
		out = append(out, []int{i})
	}
	return out
}

// shiftYear is the same calendar day in year y (29 February becomes the
// 28th in a common year).
func shiftYear(d time.Time, y int) time.Time {
	if d.Month() == time.February && d.Day() == 29 {
		return time.Date(y, time.February, 28, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(y, d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
}

func civil(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// openMeteoDoc is one location's answer: {"latitude":…, "daily":{"time":[…],
// "<variable>":[…]}} with null for a missing value.
type openMeteoDoc struct {
	Daily openMeteoDaily `json:"daily"`
}

type openMeteoDaily struct {
	Time []string   `json:"time"`
	TMax []*float64 `json:"temperature_2m_max"`
	TMin []*float64 `json:"temperature_2m_min"`
	Prec []*float64 `json:"precipitation_sum"`
	Prob []*float64 `json:"precipitation_probability_max"`
	Wind []*float64 `json:"wind_speed_10m_max"`
	Dir  []*float64 `json:"wind_direction_10m_dominant"`
	Hum  []*float64 `json:"relative_humidity_2m_mean"`
}

func at(xs []*float64, i int) (float64, bool) {
	if i < len(xs) && xs[i] != nil && !math.IsNaN(*xs[i]) {
		return *xs[i], true
	}
	return 0, false
}

// sample is day i's values; false when a value the rules need is missing
// (humidity alone may be: it then counts as dry air).
func (d openMeteoDaily) sample(i int) (alert.WeatherSample, bool) {
	tmax, ok1 := at(d.TMax, i)
	tmin, ok2 := at(d.TMin, i)
	prec, ok3 := at(d.Prec, i)
	wind, ok4 := at(d.Wind, i)
	dir, ok5 := at(d.Dir, i)
	hum, _ := at(d.Hum, i)
	return alert.WeatherSample{TempMinC: tmin, TempMaxC: tmax, PrecipitationMM: prec, WindMaxKmh: wind, WindFromDeg: dir, HumidityPct: hum},
		ok1 && ok2 && ok3 && ok4 && ok5
}

// parseOpenMeteoDocs reads an answer for n locations: one object for one
// location, a list of them for several (Open-Meteo's documented shape for
// comma-separated coordinates).
func parseOpenMeteoDocs(body []byte, n int) ([]openMeteoDoc, error) {
	var docs []openMeteoDoc
	if n == 1 {
		var d openMeteoDoc
		if err := json.Unmarshal(body, &d); err != nil {
			return nil, fmt.Errorf("%w: open-meteo answer is not the documented JSON: %v", ErrBadAnswer, err)
		}
		docs = []openMeteoDoc{d}
	} else if err := json.Unmarshal(body, &docs); err != nil {
		return nil, fmt.Errorf("%w: open-meteo answer for %d places is not the documented list: %v", ErrBadAnswer, n, err)
	}
	if len(docs) != n {
		return nil, fmt.Errorf("%w: open-meteo answered %d places for %d", ErrBadAnswer, len(docs), n)
	}
	return docs, nil
}

// beyondForecast reports an error that says the forecast endpoint does not
// cover the date (Open-Meteo answers 400 "out of allowed range"): the day
// then gets typical conditions instead.
func beyondForecast(err error) bool { return errors.Is(err, upstream.ErrRejected) }
