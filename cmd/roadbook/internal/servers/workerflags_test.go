package servers

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/services/worker/workerserver"
)

func TestWorkerFlags(t *testing.T) {
	t.Parallel()
	parse := func(t *testing.T, args ...string) (workerserver.Config, error) {
		t.Helper()
		fs := flag.NewFlagSet("worker", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var wf workerFlags
		wf.register(fs)
		require.NoError(t, fs.Parse(args))
		var cfg workerserver.Config
		return cfg, wf.apply(&cfg)
	}
	t.Run("the flags reach the worker's config", func(t *testing.T) {
		t.Parallel()
		cfg, err := parse(t, "--geocoder", "nominatim", "--nominatim-url", "https://nominatim.example", "--user-agent", "Roadbook/1 (ops@example.org)",
			"--overpass-url", "https://overpass.example", "--openmeteo-url", "https://meteo.example", "--komoot-url", "https://komoot.example", "--consumer", "roadbook-worker-b")
		require.NoError(t, err)
		require.Equal(t, workerserver.GeocoderNominatim, cfg.Geocoder)
		require.Equal(t, "https://nominatim.example", cfg.NominatimURL)
		require.Equal(t, "Roadbook/1 (ops@example.org)", cfg.UserAgent)
		require.Equal(t, "https://overpass.example", cfg.OverpassURL)
		require.Equal(t, "https://meteo.example", cfg.OpenMeteoURL)
		require.Equal(t, "https://komoot.example", cfg.KomootURL)
		require.Equal(t, "roadbook-worker-b", cfg.Consumers.Durable)
		require.Empty(t, cfg.OSRMURL, "a provider without a URL stays off")
		require.Equal(t, 1, cfg.Streams.Replicas, "one replica unless told: one NATS server")
	})
	t.Run("the stream replica count reaches the worker's stream options", func(t *testing.T) {
		t.Parallel()
		cfg, err := parse(t, "--stream-replicas", "3")
		require.NoError(t, err)
		require.Equal(t, 3, cfg.Streams.Replicas)
		require.Equal(t, workerserver.DefaultStreamOptions().Duplicates, cfg.Streams.Duplicates, "the other stream settings keep their defaults")
	})
	t.Run("a replica count outside 1..5 is refused naming the flag", func(t *testing.T) {
		t.Parallel()
		_, err := parse(t, "--stream-replicas", "0")
		require.ErrorContains(t, err, "--stream-replicas 0")
		_, err = parse(t, "--stream-replicas", "7")
		require.ErrorContains(t, err, "--stream-replicas 7")
	})
	t.Run("an unknown geocoder is refused naming it", func(t *testing.T) {
		t.Parallel()
		_, err := parse(t, "--geocoder", "google")
		require.ErrorContains(t, err, `"google"`)
	})
	t.Run("by default no data provider is on", func(t *testing.T) {
		t.Parallel()
		cfg, err := parse(t)
		require.NoError(t, err)
		require.Empty(t, cfg.OverpassURL)
		require.Empty(t, cfg.OpenMeteoURL)
		require.Equal(t, workerserver.GeocoderGazetteer, cfg.Geocoder)
		require.Contains(t, cfg.ProviderSummary(), "off (--overpass-url or --providers public)")
		require.Contains(t, cfg.ProviderSummary(), "offline rules — geometry, daylight, pacing, calendar, borders — always run",
			"the offline families, from the domain's table")
	})
	t.Run("--providers public turns on the public Overpass, Open-Meteo and Nominatim", func(t *testing.T) {
		t.Parallel()
		cfg, err := parse(t, "--providers", "public")
		require.NoError(t, err)
		require.Equal(t, "https://overpass-api.de", cfg.OverpassURL)
		require.Equal(t, "https://api.open-meteo.com", cfg.OpenMeteoURL)
		require.Equal(t, "https://archive-api.open-meteo.com", cfg.OpenMeteoArchiveURL)
		require.Equal(t, workerserver.GeocoderNominatim, cfg.Geocoder)
		require.Equal(t, "https://nominatim.openstreetmap.org", cfg.NominatimURL)
		require.Empty(t, cfg.OSRMURL, "there is no public routing engine to lean on")
		sum := cfg.ProviderSummary()
		require.Contains(t, sum, "on  (https://overpass-api.de)")
		require.Contains(t, sum, "--user-agent", "the default User-Agent names no contact")
	})
	t.Run("--providers public keeps a URL and a geocoder given explicitly", func(t *testing.T) {
		t.Parallel()
		cfg, err := parse(t, "--providers", "public", "--overpass-url", "https://overpass.example", "--geocoder", "gazetteer",
			"--user-agent", "MyTrips/1 (me@example.org)")
		require.NoError(t, err)
		require.Equal(t, "https://overpass.example", cfg.OverpassURL)
		require.Equal(t, "https://api.open-meteo.com", cfg.OpenMeteoURL)
		require.Equal(t, workerserver.GeocoderGazetteer, cfg.Geocoder)
		require.NotContains(t, cfg.ProviderSummary(), "--user-agent")
	})
	t.Run("an unknown provider set is refused naming it", func(t *testing.T) {
		t.Parallel()
		_, err := parse(t, "--providers", "all")
		require.ErrorContains(t, err, `--providers "all"`)
	})
	t.Run("a provider URL that is not http(s) is refused naming the flag", func(t *testing.T) {
		t.Parallel()
		_, err := parse(t, "--overpass-url", "ftp://overpass.example")
		require.ErrorContains(t, err, "--overpass-url")
	})
}
