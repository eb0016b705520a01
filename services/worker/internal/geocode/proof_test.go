package geocode_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/geocoding"
	"github.com/roadbook/roadbook/services/worker/internal/gazetteer"
	"github.com/roadbook/roadbook/services/worker/internal/geocode"
	"github.com/roadbook/roadbook/services/worker/internal/geocode/nominatim/nominatimtest"
	"github.com/roadbook/roadbook/testkit"
)

// startWorkers builds ./testworker and runs n of them against one NATS.
func startWorkers(t *testing.T, n int, natsURL, nominatimURL string, extra ...string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "testworker")
	build := exec.Command("go", "build", "-o", bin, "./testworker")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	for i := range n {
		args := append([]string{"-nats", natsURL, "-nominatim", nominatimURL, "-name", fmt.Sprintf("w%d", i)}, extra...)
		cmd := exec.Command(bin, args...)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		})
		line, err := bufio.NewReader(out).ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "ready\n", line)
	}
}

// gazetteerReverse lets the fake Nominatim answer reverse lookups along a
// real route, in Nominatim's format, with real place names.
func gazetteerReverse(t *testing.T) nominatimtest.ReverseFunc {
	g, err := gazetteer.Load()
	require.NoError(t, err)
	return func(lat, lon float64) (string, string, bool) {
		p, ok := g.Nearest(lat, lon)
		return p.Name, p.Type, ok
	}
}

// TestApplicationWideLimit is the proof of ARCHITECTURE §6: three worker
// processes on one NATS, 200 concurrent distinct searches for 60 s; the
// Nominatim fake sees at most 60 requests, none less than 1.0 s after the
// previous one. Then an outage (429, then 503s) opens the breakers, labels
// read "unavailable", and they fill in once the fake recovers.
func TestApplicationWideLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three processes for over a minute")
	}
	t.Parallel()
	s, _ := testkit.NATS(t)
	fake := nominatimtest.New(gazetteerReverse(t))
	defer fake.Close()
	startWorkers(t, 3, s.URL(), fake.URL, "-breaker-open", "2s", "-label-retry", "1s")
	nc := connect(t, s)

	window := 60 * time.Second
	if v := os.Getenv("ROADBOOK_PROOF_WINDOW"); v != "" { // for debugging only; the proof is 60 s
		d, err := time.ParseDuration(v)
		require.NoError(t, err)
		window = d
	}
	var ok, limited, unavailable, other atomic.Int64
	start := time.Now()
	deadline := start.Add(window)
	var wg sync.WaitGroup
	for c := range 200 {
		wg.Go(func() {
			for n := 0; time.Now().Before(deadline); n++ {
				b, err := proto.Marshal(&roadbookv1.SearchPlacesRequest{Query: fmt.Sprintf("place %d-%d", c, n), Limit: 3})
				require.NoError(t, err)
				m, err := nc.Request(geocoding.SubjectSearch, b, 12*time.Second)
				switch {
				case err != nil:
					other.Add(1)
				case geocoding.Read(m.Header).Err == geocoding.CodeRateLimited:
					limited.Add(1)
					require.NotEmpty(t, m.Header.Get(geocoding.HeaderRetryAfter))
					time.Sleep(300 * time.Millisecond)
				case m.Header.Get(geocoding.HeaderError) != "":
					unavailable.Add(1)
				default:
					ok.Add(1)
				}
			}
		})
	}
	wg.Wait()
	reqs := fake.Requests()
	t.Logf("searches answered=%d rate_limited=%d unavailable=%d failed=%d; fake saw %d requests",
		ok.Load(), limited.Load(), unavailable.Load(), other.Load(), len(reqs))

	t.Run("the fake sees at most 60 requests in the 60 s, never two within 1.0 s", func(t *testing.T) {
		inWindow := 0
		for _, r := range reqs {
			if !r.At.After(deadline) {
				inWindow++
			}
		}
		limit := int(window / time.Second)
		require.LessOrEqual(t, inWindow, limit)
		t.Logf("requests within the %s window: %d (limit %d); after it, in-flight searches: %d", window, inWindow, limit, len(reqs)-inWindow)
		for i := 1; i < len(reqs); i++ {
			require.GreaterOrEqual(t, reqs[i].At.Sub(reqs[i-1].At), time.Second, "requests %d and %d", i-1, i)
		}
		for _, r := range reqs {
			require.Equal(t, http.StatusOK, r.Status, "no request was refused by the policy")
		}
	})

	t.Run("the slots were used and shared by all three processes", func(t *testing.T) {
		// 1.1 s pacing allows ~54 in 60 s; most slots must be used.
		require.GreaterOrEqual(t, len(reqs), int(0.7*float64(window)/float64(1100*time.Millisecond)))
		// A request whose answer arrives after the responder's own deadline
		// (MaxWait) was still sent, so a loaded machine may lose a few
		// answers; the policy checks above stay exact.
		require.GreaterOrEqual(t, float64(ok.Load()), 0.9*float64(len(reqs)), "almost every request sent answered a search")
		by := map[string]int{}
		for _, r := range reqs {
			by[r.UserAgent]++
		}
		require.Len(t, by, 3, "%v", by)
		require.Positive(t, limited.Load(), "the rest were told to come back later")
		require.Zero(t, other.Load(), "every request got an answer")
	})

	t.Run("an outage opens the breaker, labels read unavailable, then fill in", func(t *testing.T) {
		before := len(fake.Requests())
		fake.StartOutage(http.StatusTooManyRequests, http.StatusServiceUnavailable)
		labels, err := nc.SubscribeSync("test.labels.trip-1")
		require.NoError(t, err)
		// Rest stops 1, 4, 7, 10 and 13 of the Oslo → Trondheim fixture
		// (long_brouter_oslo-trondheim_fastbike.gpx <wpt>s).
		pts := []geocode.Point{{Lat: 60.017116, Lon: 11.111775}, {Lat: 60.688004, Lon: 11.199278}, {Lat: 61.154836, Lon: 10.357619}, {Lat: 61.549543, Lon: 10.083226}, {Lat: 62.126197, Lon: 10.093652}}
		var stages []geocode.StageEnds
		for i := range 4 {
			stages = append(stages, geocode.StageEnds{Index: i, ContentHash: strings.Repeat(fmt.Sprint(i), 64), Start: pts[i], End: pts[i+1]})
		}
		b, err := json.Marshal(map[string]any{"Trip": "trip-1", "Stages": stages})
		require.NoError(t, err)
		m, err := nc.Request("test.label.w1", b, 5*time.Second)
		require.NoError(t, err)
		require.Equal(t, "ok", string(m.Data))
		progress := func() (p struct {
			State       string
			Done, Total int
		}) {
			m, err := nc.Request("test.progress.w1", []byte("trip-1"), 5*time.Second)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(m.Data, &p))
			return p
		}
		require.Eventually(t, func() bool { return progress().State == "unavailable" }, 30*time.Second, 100*time.Millisecond)
		// The outage lasts until the breaker has been probed and re-opened at
		// least once more (the shortened "minute").
		require.Eventually(t, func() bool {
			n := 0
			for _, r := range fake.Requests()[before:] {
				if r.Status == http.StatusServiceUnavailable {
					n++
				}
			}
			return n >= 2
		}, 30*time.Second, 100*time.Millisecond)
		require.Equal(t, "unavailable", progress().State)
		fake.EndOutage()

		got := map[int]geocode.StageLabel{}
		for len(got) < 4 {
			msg, err := labels.NextMsg(30 * time.Second)
			require.NoError(t, err)
			var batch []geocode.StageLabel
			require.NoError(t, json.Unmarshal(msg.Data, &batch))
			for _, l := range batch {
				_, dup := got[l.Index]
				require.False(t, dup, "stage %d delivered twice", l.Index)
				got[l.Index] = l
			}
		}
		for i := range 4 {
			require.NotEmpty(t, got[i].Start)
			require.NotEmpty(t, got[i].End)
			if i > 0 {
				require.Equal(t, got[i-1].End, got[i].Start)
			}
		}
		p := progress()
		require.Equal(t, "done", p.State)
		require.Equal(t, 4, p.Done)
		all := fake.Requests()
		for i := 1; i < len(all); i++ {
			require.GreaterOrEqual(t, all[i].At.Sub(all[i-1].At), time.Second, "requests %d and %d", i-1, i)
		}
	})
}
