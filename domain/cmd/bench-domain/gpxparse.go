package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/roadbook/roadbook/domain/route"
)

// gpxFixture is the 627 km Oslo–Trondheim BRouter track, looked up relative
// to the domain module (bench-domain is run from domain/ by `make
// bench-domain`) and, as a convenience, from the repository root or from
// this command's own directory.
var gpxFixtureCandidates = []string{
	"route/testdata/gpx/long_brouter_oslo-trondheim_fastbike.gpx",
	"domain/route/testdata/gpx/long_brouter_oslo-trondheim_fastbike.gpx",
	"../../route/testdata/gpx/long_brouter_oslo-trondheim_fastbike.gpx",
}

const (
	gpxBenchTarget   = 30 << 20 // the upload limit: the input stays just under it
	gpxOurRuns       = 5
	gpxBaselineRuns  = 3
	gpxHeapSampleGap = 200 * time.Microsecond
)

// benchGPXParse measures route.ReadGPX against a bare encoding/xml Token()
// loop over the same ~30 MiB of GPX (best run of each), and the peak heap
// our reader adds while reading it, and returns the gpx-parse line.
func benchGPXParse() (string, error) {
	fixture, err := loadGPXFixture()
	if err != nil {
		return "", err
	}
	input, points, err := buildGPXBenchInput(fixture, gpxBenchTarget)
	if err != nil {
		return "", err
	}

	ours, err := bestOf(gpxOurRuns, func() error {
		rt, err := route.ReadGPX(bytes.NewReader(input))
		if err != nil {
			return err
		}
		if len(rt.Points) != points {
			return fmt.Errorf("read %d points, want %d", len(rt.Points), points)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("gpx-parse: our reader: %w", err)
	}
	baseline, err := bestOf(gpxBaselineRuns, func() error { return tokenLoop(input) })
	if err != nil {
		return "", fmt.Errorf("gpx-parse: encoding/xml baseline: %w", err)
	}
	peak, err := peakHeap(func() error {
		_, err := route.ReadGPX(bytes.NewReader(input))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("gpx-parse: peak heap run: %w", err)
	}

	mib := float64(len(input)) / (1 << 20)
	ourRate := mib / ours.Seconds()
	baseRate := mib / baseline.Seconds()
	return fmt.Sprintf("domain gpx-parse mb_per_s=%.1f baseline_mb_per_s=%.1f ratio=%.2f peak_heap_mb=%.1f",
		ourRate, baseRate, ourRate/baseRate, float64(peak)/(1<<20)), nil
}

func loadGPXFixture() ([]byte, error) {
	for _, p := range gpxFixtureCandidates {
		if b, err := os.ReadFile(filepath.FromSlash(p)); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("gpx-parse: fixture not found (run from domain/): tried %v", gpxFixtureCandidates)
}

// buildGPXBenchInput repeats the fixture's track segment inside one <trk>
// until the document is as large as it can be without passing limit. The
// result is deterministic: same fixture, same bytes. It returns the input and
// the number of track points it holds.
func buildGPXBenchInput(fixture []byte, limit int) ([]byte, int, error) {
	open, closeTag := []byte("<trkseg>"), []byte("</trkseg>")
	i := bytes.Index(fixture, open)
	j := bytes.LastIndex(fixture, closeTag)
	if i < 0 || j < i {
		return nil, 0, errors.New("gpx-parse: fixture has no <trkseg>")
	}
	head := fixture[:i]
	seg := fixture[i : j+len(closeTag)]
	tail := fixture[j+len(closeTag):]
	perSeg := bytes.Count(seg, []byte("<trkpt "))
	var buf bytes.Buffer
	buf.Grow(limit)
	buf.Write(head)
	n := 0
	for buf.Len()+len(seg)+1+len(tail) <= limit {
		buf.Write(seg)
		buf.WriteByte('\n')
		n++
	}
	if n == 0 {
		return nil, 0, errors.New("gpx-parse: limit smaller than one segment")
	}
	buf.Write(tail)
	return buf.Bytes(), n * perSeg, nil
}

// tokenLoop is the baseline: the cheapest complete pass encoding/xml offers.
func tokenLoop(input []byte) error {
	d := xml.NewDecoder(bytes.NewReader(input))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// bestOf runs f n times after a GC each and returns the fastest run.
func bestOf(n int, f func() error) (time.Duration, error) {
	best := time.Duration(1<<63 - 1)
	for range n {
		runtime.GC()
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		if d := time.Since(start); d < best {
			best = d
		}
	}
	return best, nil
}

// peakHeap runs f while sampling the in-use heap (objects plus unused
// spans, what MemStats calls HeapInuse) through runtime/metrics, which does
// not stop the world, and returns the highest sample minus the heap in use
// before f started: the input buffer is already allocated then, so it is
// not counted against the reader.
func peakHeap(f func() error) (uint64, error) {
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
	}
	inuse := func() uint64 {
		metrics.Read(samples)
		return samples[0].Value.Uint64() + samples[1].Value.Uint64()
	}
	runtime.GC()
	base := inuse()
	var peak atomic.Uint64
	peak.Store(base)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		local := make([]metrics.Sample, len(samples))
		copy(local, samples)
		t := time.NewTicker(gpxHeapSampleGap)
		defer t.Stop()
		for {
			metrics.Read(local)
			if v := local[0].Value.Uint64() + local[1].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	err := f()
	if v := inuse(); v > peak.Load() {
		peak.Store(v)
	}
	close(stop)
	<-done
	return peak.Load() - base, err
}
