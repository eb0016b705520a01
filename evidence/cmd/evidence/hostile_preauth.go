package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// preauthMemory is what the pre-authentication body attack measured: the
// API's RSS at rest and at its peak while the bodies arrived.
type preauthMemory struct {
	requests, refused int
	idleKiB, peakKiB  int64
}

// growthMB is the peak over idle, in MB.
func (m preauthMemory) growthMB() float64 { return float64(m.peakKiB-m.idleKiB) * 1024 / 1e6 }

// preauthBodies is the number and size of the unauthenticated requests of
// the memory attack: a red-team run found eight such 41 MiB ListTrips
// calls grew the API by 750 MB, because the body was read before the token
// was checked (docs/SECURITY.md).
const (
	preauthRequests = 50
	preauthBytes    = 41 << 20
	// preauthBudgetMB is how far over idle the API may grow under them.
	preauthBudgetMB = 50
)

// spaces is an endless request body (41 MiB each, never held in memory here).
type spaces struct{ left int64 }

func (s *spaces) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), s.left))
	for i := range p[:n] {
		p[i] = ' '
	}
	s.left -= int64(n)
	return n, nil
}

// preauth sends 50 parallel 41 MiB calls without a token (and with a
// forged one) to procedures that need one, samples the API's RSS while
// they run, and counts each answered unauthenticated as refused.
func (h *hostileRun) preauth(ctx context.Context) {
	const category = "pre-authentication bodies (Connect, 41 MiB each)"
	h.preauthMem.requests = preauthRequests
	// Let the set-up's garbage go before taking the idle figure.
	time.Sleep(2 * time.Second)
	h.preauthMem.idleKiB = h.c.API.RSSKiB()
	var peak atomic.Int64
	peak.Store(h.preauthMem.idleKiB)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if r := h.c.API.RSSKiB(); r > peak.Load() {
					peak.Store(r)
				}
			}
		}
	}()
	procedures := []string{"roadbook.v1.TripService/ListTrips", "roadbook.v1.TripService/CreateTripFromUpload",
		"roadbook.v1.StageEditService/RestoreStageLayout", "roadbook.v1.AccountService/DeleteAccount"}
	type answer struct {
		status int
		code   string
		err    error
	}
	answers := make([]answer, preauthRequests)
	var wg sync.WaitGroup
	for i := range preauthRequests {
		wg.Go(func() {
			proc := procedures[i%len(procedures)]
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.c.APIURL+"/"+proc, &spaces{left: preauthBytes})
			if err != nil {
				answers[i] = answer{err: err}
				return
			}
			if i%3 != 2 { // every third request is chunked: no Content-Length to refuse on
				req.ContentLength = preauthBytes
			}
			req.Header.Set("Content-Type", "application/json")
			if i%2 == 1 {
				req.Header.Set("Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.forged")
			}
			resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
			if err != nil {
				answers[i] = answer{err: err}
				return
			}
			defer resp.Body.Close()
			var e struct {
				Code string `json:"code"`
			}
			_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&e)
			answers[i] = answer{status: resp.StatusCode, code: e.Code}
		})
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond) // a late allocation still shows
	close(stop)
	<-sampled
	h.preauthMem.peakKiB = peak.Load()
	for i, a := range answers {
		ok := a.err == nil && a.status == http.StatusUnauthorized && a.code == "unauthenticated"
		if ok {
			h.preauthMem.refused++
		}
		got := fmt.Sprintf("HTTP %d %s", a.status, a.code)
		if a.err != nil {
			got = "transport: " + truncate(a.err.Error(), 90)
		}
		token := map[bool]string{false: "no token", true: "forged token"}[i%2 == 1]
		framing := map[bool]string{false: "Content-Length", true: "chunked"}[i%3 == 2]
		h.add(category, fmt.Sprintf("#%d %s, %s, %s", i+1, procedures[i%len(procedures)], token, framing), got, ok)
	}
	h.log.Info("pre-authentication bodies", "refused", h.preauthMem.refused, "idle_kib", h.preauthMem.idleKiB,
		"peak_kib", h.preauthMem.peakKiB)
}
