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
	})
	t.Run("an unknown geocoder is refused naming it", func(t *testing.T) {
		t.Parallel()
		_, err := parse(t, "--geocoder", "google")
		require.ErrorContains(t, err, `"google"`)
	})
	t.Run("a provider URL that is not http(s) is refused naming the flag", func(t *testing.T) {
		t.Parallel()
		_, err := parse(t, "--overpass-url", "ftp://overpass.example")
		require.ErrorContains(t, err, "--overpass-url")
	})
}
