package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Ledger is what the agents did that the store audit checks against:
// every trip created, every trip deleted, every write acknowledged.
type Ledger struct {
	mu sync.Mutex
	// Created and Deleted are trip ids.
	Created, Deleted map[string]bool
	// Acked is, per trip, the highest version a write answered with.
	Acked map[string]int64
	// DeleteSent are trips whose confirmed delete_trip was sent, answered
	// or not (a run may end while it is in flight).
	DeleteSent map[string]bool
}

// NewLedger is empty.
func NewLedger() *Ledger {
	return &Ledger{Created: map[string]bool{}, Deleted: map[string]bool{}, Acked: map[string]int64{}, DeleteSent: map[string]bool{}}
}

// CreatedCount is how many trips were created so far (the soak splits its
// run in halves by it).
func (l *Ledger) CreatedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.Created)
}

func (l *Ledger) created(id string, v int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Created[id] = true
	l.Acked[id] = max(l.Acked[id], v)
}

func (l *Ledger) acked(id string, v int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Acked[id] = max(l.Acked[id], v)
}

func (l *Ledger) deleteSent(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.DeleteSent[id] = true
}

func (l *Ledger) deleted(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Deleted[id] = true
}

// Script is one agent's loop: create a trip from a fixture, follow the
// hints until it is ready, read, edit a day, analyse, follow the hints
// again, and delete it half of the time (two-step confirmation).
type Script struct {
	// Session is the agent's MCP session.
	Session *Session
	// Name labels its trips.
	Name string
	// GPX are the fixtures to upload inline.
	GPX []string
	// Ledger records what it did.
	Ledger *Ledger
	// HintTimeout bounds following hints for one computation.
	HintTimeout time.Duration
	// Rand picks fixtures and decisions.
	Rand *rand.Rand
	// Shift, when set, moves every uploaded route by a random offset of up
	// to ±Shift degrees, so each trip has coordinates never seen before
	// (and its stage labels miss every geocoding cache).
	Shift float64
	// Tolerate names pending parts ("labels") that Follow does not wait
	// for: a build whose geocoder is not wired never resolves them.
	Tolerate map[string]bool
}

// Cycle runs the loop once; an error is a step that did not go as an
// agent following the hints expects (the Stats hold the per-call codes).
func (s *Script) Cycle(ctx context.Context, n int) error {
	gpx := s.GPX[s.Rand.IntN(len(s.GPX))]
	if s.Shift > 0 {
		gpx = shift(gpx, (s.Rand.Float64()*2-1)*s.Shift, (s.Rand.Float64()*2-1)*s.Shift)
	}
	c, err := s.Session.Call(ctx, "create_trip", map[string]any{"gpx": gpx, "title": fmt.Sprintf("%s trip %d", s.Name, n)})
	if err != nil {
		return err
	}
	if c.IsError {
		return fmt.Errorf("create_trip: %s", c.Code)
	}
	id, _ := c.Data["tripId"].(string)
	s.Ledger.created(id, num(c.Data["version"]))
	trip, err := s.Follow(ctx, id)
	if err != nil {
		return err
	}
	if _, err := s.Session.Call(ctx, "list_trips", map[string]any{"limit": 5}); err != nil {
		return err
	}
	stages, _ := trip["stages"].([]any)
	v := num(trip["version"])
	if len(stages) > 0 {
		if _, err := s.Session.Call(ctx, "get_stage", map[string]any{"tripId": id, "stageIndex": 0}); err != nil {
			return err
		}
		e, err := s.Session.Call(ctx, "edit_stages", map[string]any{"tripId": id, "version": v, "action": "rest_day", "afterStageIndex": 0})
		if err != nil {
			return err
		}
		if e.IsError {
			return fmt.Errorf("edit_stages: %s", e.Code)
		}
		s.Ledger.acked(id, num(e.Data["version"]))
		if trip, err = s.Follow(ctx, id); err != nil {
			return err
		}
		v = num(trip["version"])
	}
	a, err := s.Session.Call(ctx, "analyze_trip", map[string]any{"tripId": id, "version": v})
	if err != nil {
		return err
	}
	if !a.IsError {
		s.Ledger.acked(id, num(a.Data["version"]))
	} else if a.Code != "version_conflict" {
		return fmt.Errorf("analyze_trip: %s", a.Code)
	}
	if trip, err = s.Follow(ctx, id); err != nil {
		return err
	}
	if s.Rand.IntN(2) == 0 {
		return nil
	}
	d, err := s.Session.Call(ctx, "delete_trip", map[string]any{"tripId": id, "version": num(trip["version"])})
	if err != nil {
		return err
	}
	next, _ := d.Data["next"].(map[string]any)
	if d.IsError || next == nil {
		return fmt.Errorf("delete_trip (impact): %s", d.Code)
	}
	s.Ledger.deleteSent(id)
	done, err := s.Session.Call(ctx, "delete_trip", json.RawMessage(must(json.Marshal(next["arguments"]))))
	if err != nil {
		return err
	}
	if done.IsError {
		return fmt.Errorf("delete_trip (confirmed): %s", done.Code)
	}
	s.Ledger.deleted(id)
	return nil
}

// Follow reads the trip and obeys its next hint (get_trip after N s) until
// nothing is pending, and returns the last digest.
func (s *Script) Follow(ctx context.Context, id string) (map[string]any, error) {
	deadline := time.Now().Add(s.HintTimeout)
	for {
		r, err := s.Session.Call(ctx, "get_trip", map[string]any{"tripId": id})
		if err != nil {
			return nil, err
		}
		if r.IsError {
			return nil, fmt.Errorf("get_trip: %s", r.Code)
		}
		next, _ := r.Data["next"].(map[string]any)
		if next == nil || next["tool"] != "get_trip" || s.tolerated(next["why"]) {
			return r.Data, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("get_trip: still pending after %s (%v)", s.HintTimeout, next["why"])
		}
		wait := time.Duration(num(next["afterSeconds"])) * time.Second
		if wait <= 0 || wait > 5*time.Second {
			wait = time.Second
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// tolerated reports whether every pending part named in why ("a
// computation is still running: labels, analysis") is tolerated.
func (s *Script) tolerated(why any) bool {
	w, _ := why.(string)
	_, parts, ok := strings.Cut(w, ": ")
	if !ok || len(s.Tolerate) == 0 {
		return false
	}
	for _, p := range strings.Split(parts, ", ") {
		if !s.Tolerate[strings.TrimSpace(p)] {
			return false
		}
	}
	return true
}

var coordAttr = regexp.MustCompile(`\b(lat|lon)="(-?[0-9]+(?:\.[0-9]+)?)"`)

// shift moves every lat/lon attribute of a GPX document by dlat/dlon
// degrees, keeping them in range.
func shift(gpx string, dlat, dlon float64) string {
	return coordAttr.ReplaceAllStringFunc(gpx, func(m string) string {
		sub := coordAttr.FindStringSubmatch(m)
		v, err := strconv.ParseFloat(sub[2], 64)
		if err != nil {
			return m
		}
		if sub[1] == "lat" {
			v = math.Max(-89.9, math.Min(89.9, v+dlat))
		} else {
			v = math.Mod(v+dlon+540, 360) - 180
		}
		return sub[1] + `="` + strconv.FormatFloat(v, 'f', 7, 64) + `"`
	})
}
