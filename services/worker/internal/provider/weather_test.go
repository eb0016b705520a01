package provider_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/alert"
	"github.com/roadbook/roadbook/services/worker/internal/provider"
)

// fakeOpenMeteo answers /v1/forecast and /v1/archive in Open-Meteo's
// documented JSON: one object per place, a list of them when the request
// names several (comma-separated latitude and longitude); a forecast date
// outside the 16-day range is a 400 {"error":true,"reason":…}. Archive days
// of year Y have a maximum of 10 + (Y − 2020) °C, so averages are known.
type fakeOpenMeteo struct {
	today time.Time
	// forecast is the daily forecast served for any date.
	forecast map[string]float64
	mu       sync.Mutex
	requests []string
}

func (f *fakeOpenMeteo) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f.mu.Lock()
		f.requests = append(f.requests, r.URL.Path+"?"+r.URL.RawQuery)
		f.mu.Unlock()
		lats, lons := strings.Split(q.Get("latitude"), ","), strings.Split(q.Get("longitude"), ",")
		start, err1 := time.Parse(time.DateOnly, q.Get("start_date"))
		end, err2 := time.Parse(time.DateOnly, q.Get("end_date"))
		if len(lats) != len(lons) || err1 != nil || err2 != nil || q.Get("daily") == "" || r.Header.Get("User-Agent") != testUA {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":true,"reason":"Cannot initialize WeatherVariable from invalid String value"}`))
			return
		}
		vars := strings.Split(q.Get("daily"), ",")
		var docs []map[string]any
		for i := range lats {
			daily := map[string]any{}
			var days []string
			for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
				days = append(days, d.Format(time.DateOnly))
			}
			daily["time"] = days
			for _, v := range vars {
				vals := make([]any, len(days))
				for j := range days {
					d, _ := time.Parse(time.DateOnly, days[j])
					switch r.URL.Path {
					case "/v1/forecast":
						vals[j] = f.forecast[v]
					case "/v1/archive":
						vals[j] = archiveValue(v, d)
					}
				}
				daily[v] = vals
			}
			lat, _ := strconv.ParseFloat(lats[i], 64)
			lon, _ := strconv.ParseFloat(lons[i], 64)
			docs = append(docs, map[string]any{"latitude": lat, "longitude": lon, "generationtime_ms": 0.2, "utc_offset_seconds": 7200,
				"timezone": "Europe/Oslo", "timezone_abbreviation": "GMT+2", "elevation": 120.0, "daily_units": map[string]string{"time": "iso8601"}, "daily": daily})
		}
		switch r.URL.Path {
		case "/v1/forecast":
			if end.After(f.today.AddDate(0, 0, 15)) {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":true,"reason":"Parameter 'start_date' is out of allowed range"}`))
				return
			}
		case "/v1/archive":
			if end.After(f.today.AddDate(0, 0, -5)) {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":true,"reason":"Parameter 'end_date' is out of allowed range"}`))
				return
			}
		default:
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if len(docs) == 1 {
			_ = json.NewEncoder(w).Encode(docs[0])
			return
		}
		_ = json.NewEncoder(w).Encode(docs)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// archiveValue is a past day's value: warmer every year, rain every other
// day, a west wind (a cold gale in December).
func archiveValue(v string, d time.Time) any {
	winter := d.Month() == time.December
	switch v {
	case "temperature_2m_max":
		if winter {
			return -8 + float64(d.Year()-2020)
		}
		return 10 + float64(d.Year()-2020)
	case "temperature_2m_min":
		return 2 + float64(d.Year()-2020)
	case "precipitation_sum":
		if d.YearDay()%2 == 0 {
			return 4.0
		}
		return 0.0
	case "wind_speed_10m_max":
		if winter {
			return 50.0
		}
		return 20.0
	case "wind_direction_10m_dominant":
		return 270.0
	case "relative_humidity_2m_mean":
		return 70.0
	}
	return nil
}

func TestWeather(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	today := time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)
	forecast := map[string]float64{"temperature_2m_max": 17.2, "temperature_2m_min": 8.4, "precipitation_sum": 2.5,
		"precipitation_probability_max": 60, "wind_speed_10m_max": 25, "wind_direction_10m_dominant": 350, "relative_humidity_2m_mean": 70}
	analyzer := func(t *testing.T, withArchive bool) (*provider.Analyzer, *fakeOpenMeteo) {
		f := &fakeOpenMeteo{today: today, forecast: forecast}
		srv := f.serve(t)
		om, err := provider.NewOpenMeteo(client(t, "open-meteo", srv.URL))
		require.NoError(t, err)
		om.WithClock(func() time.Time { return today })
		if withArchive {
			om.WithArchive(client(t, "open-meteo-archive", srv.URL))
		}
		return &provider.Analyzer{Weather: om}, f
	}
	// Three 80 km days due north: 12 May (forecast), 26 May (the 16th day:
	// typical) and 27 May.
	days := func(dates ...time.Time) []provider.Stage {
		var out []provider.Stage
		for i, d := range dates {
			s := stageOf(80)
			s.Index, s.Date = i, d
			out = append(out, s)
		}
		return out
	}
	may := func(d int) time.Time { return time.Date(2026, 5, d, 0, 0, 0, 0, time.UTC) }

	t.Run("a date within 16 days is forecast, with the headwind along the day's heading and the comfort", func(t *testing.T) {
		t.Parallel()
		a, f := analyzer(t, true)
		res, err := a.Analyze(ctx, days(may(12), may(25)))
		require.NoError(t, err)
		require.Equal(t, alert.StatusEvaluated, availability(t, res, alert.FamilyWeather).Status)
		for i := range 2 {
			w := res.Weather[i]
			require.False(t, w.Typical, "day %d", i)
			require.Equal(t, 8.4, w.TempMinC)
			require.Equal(t, 17.2, w.TempMaxC)
			require.Equal(t, 2.5, w.PrecipitationMM)
			require.InDelta(t, 25*0.98481, w.HeadwindKmh, 0.05, "a wind from 350° against a heading of 0°")
			require.InDelta(t, 100-7.5-20, w.Comfort, 1e-9, "wind 25 km/h −7.5, 60 %% rain −20")
			require.InDelta(t, km(40).Lat, w.Lat, 0.01, "read at the middle of the day")
		}
		require.Len(t, f.requests, 2)
		require.Contains(t, codes(res.Alerts), alert.CodeHeadwind, "25 km/h within 60° on every forecast day")
	})

	t.Run("beyond the horizon a day gets typical conditions from the same days of the last 5 years, one request per year", func(t *testing.T) {
		t.Parallel()
		a, f := analyzer(t, true)
		res, err := a.Analyze(ctx, days(may(26), may(27), time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)))
		require.NoError(t, err)
		require.Equal(t, alert.StatusEvaluated, availability(t, res, alert.FamilyWeather).Status)
		w := res.Weather[0]
		require.True(t, w.Typical)
		require.Equal(t, provider.TypicalYears, w.Years)
		require.InDelta(t, 10+3, w.TempMaxC, 1e-9, "2021…2025: 11…15 °C")
		require.InDelta(t, 2+3, w.TempMinC, 1e-9)
		require.InDelta(t, 270, w.WindFromDeg, 1e-6)
		require.InDelta(t, 0, w.HeadwindKmh, 1e-6, "a west wind is across a northbound day")
		require.InDelta(t, 50, w.PrecipProbabilityPct, 8, "rain every other day")
		var forecasts, archives []string
		for _, r := range f.requests {
			if strings.HasPrefix(r, "/v1/archive") {
				archives = append(archives, r)
			} else {
				forecasts = append(forecasts, r)
			}
		}
		require.Empty(t, forecasts, "nothing is asked of the forecast beyond its horizon")
		require.Len(t, archives, 2*provider.TypicalYears, "26–27 May together, 1 August apart, one request a year each")
		require.Regexp(t, `latitude=[0-9.]+%2C[0-9.]+&`, archives[0], "two places in one request")
		require.NotContains(t, codes(res.Alerts), alert.CodeHeadwind, "typical days never make a headwind alert")
	})

	t.Run("a date the forecast refuses gets typical conditions instead", func(t *testing.T) {
		t.Parallel()
		a, _ := analyzer(t, true)
		res, err := a.Analyze(ctx, days(may(25)))
		require.NoError(t, err)
		require.False(t, res.Weather[0].Typical)
		late, f := analyzer(t, true)
		f.today = today.AddDate(0, 0, -1) // the provider's day is behind ours: 25 May is its 16th day
		res, err = late.Analyze(ctx, days(may(25)))
		require.NoError(t, err)
		require.True(t, res.Weather[0].Typical)
	})

	t.Run("without the archive, days beyond the horizon have no weather and say so", func(t *testing.T) {
		t.Parallel()
		a, _ := analyzer(t, false)
		res, err := a.Analyze(ctx, days(time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)))
		require.NoError(t, err)
		require.Equal(t, alert.Unavailable(alert.FamilyWeather, "no forecast yet for the stage dates"), availability(t, res, alert.FamilyWeather))
		require.Empty(t, res.Weather)
	})

	t.Run("typical poor comfort is raised and labelled as not a forecast", func(t *testing.T) {
		t.Parallel()
		a, _ := analyzer(t, true)
		res, err := a.Analyze(ctx, days(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC)))
		require.NoError(t, err)
		require.True(t, res.Weather[0].Typical)
		// −5 °C (−20), 50 km/h (−30), rain one day in two (−15): 35.
		require.InDelta(t, 35, res.Weather[0].Comfort, 4)
		low := withCode(res.Alerts, alert.CodeWeatherComfortLow)
		require.Len(t, low, 1)
		require.Contains(t, low[0].Message, "not a forecast")
	})
}
