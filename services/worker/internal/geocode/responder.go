package geocode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
	"github.com/roadbook/roadbook/proto/geocoding"
)

// ResponderOptions tunes a Responder. Zero values take the defaults.
type ResponderOptions struct {
	// MaxWait bounds how long one request may wait for the geocoder (the
	// API's own deadline should be a little longer). Default 8 s.
	MaxWait time.Duration
	// MaxInFlight bounds concurrent requests being served by this replica;
	// beyond it requests are answered rate_limited at once. Default 64.
	MaxInFlight int
	// Logger, default slog.Default().
	Logger *slog.Logger
}

// Responder answers the API's geocoding requests over NATS with the
// configured geocoder (the gazetteer, or a Queue over Nominatim so searches
// share the paced line with labels and go first).
type Responder struct {
	nc   *nats.Conn
	g    Geocoder
	opt  ResponderOptions
	log  *slog.Logger
	sem  chan struct{}
	subs []*nats.Subscription
	wg   sync.WaitGroup
	stop context.CancelFunc
	ctx  context.Context
}

// NewResponder builds a responder; Start subscribes it.
func NewResponder(nc *nats.Conn, g Geocoder, opt ResponderOptions) (*Responder, error) {
	if nc == nil || g == nil {
		return nil, errors.New("geocode: NewResponder needs a NATS connection and a geocoder")
	}
	if opt.MaxWait <= 0 {
		opt.MaxWait = 8 * time.Second
	}
	if opt.MaxInFlight <= 0 {
		opt.MaxInFlight = 64
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Responder{nc: nc, g: g, opt: opt, log: log, sem: make(chan struct{}, opt.MaxInFlight)}, nil
}

// Start subscribes to both subjects of the contract (proto/geocoding) in its
// queue group. Each request is served on
// its own goroutine (bounded by MaxInFlight), because NATS runs a
// subscription's callbacks one at a time and a search may wait seconds for
// its rate-limit slot.
func (r *Responder) Start(ctx context.Context) error {
	r.ctx, r.stop = context.WithCancel(ctx)
	for subj, serve := range map[string]func(context.Context, []byte) ([]byte, error){
		geocoding.SubjectSearch:  r.search,
		geocoding.SubjectReverse: r.reverse,
	} {
		sub, err := r.nc.QueueSubscribe(subj, geocoding.QueueGroup, func(m *nats.Msg) { r.dispatch(m, serve) })
		if err != nil {
			_ = r.Stop()
			return fmt.Errorf("geocode: subscribing to %s: %w", subj, err)
		}
		r.subs = append(r.subs, sub)
	}
	return r.nc.Flush()
}

// Stop unsubscribes, cancels requests in flight and waits for their replies.
func (r *Responder) Stop() error {
	var errs []error
	for _, s := range r.subs {
		errs = append(errs, s.Unsubscribe())
	}
	r.subs = nil
	if r.stop != nil {
		r.stop()
	}
	r.wg.Wait()
	return errors.Join(errs...)
}

func (r *Responder) dispatch(m *nats.Msg, serve func(context.Context, []byte) ([]byte, error)) {
	if m.Reply == "" {
		return // a publish, not a request: nobody to answer
	}
	select {
	case r.sem <- struct{}{}:
	default:
		r.respond(m, nil, &queueFullError{after: 2 * time.Second}, false)
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() { <-r.sem }()
		ctx, cancel := context.WithTimeout(r.ctx, r.opt.MaxWait)
		defer cancel()
		ctx, note := withCacheNote(ctx)
		body, err := serve(ctx, m.Data)
		r.respond(m, body, err, note.hit())
	}()
}

// respond replies; a successful reply says whether it came from the shared
// cache, so the API charges the caller's quota on misses only.
func (r *Responder) respond(m *nats.Msg, body []byte, err error, cached bool) {
	reply := &nats.Msg{Subject: m.Reply, Data: body, Header: nats.Header{}}
	head := geocoding.Reply{Cached: cached}
	if err != nil {
		head.Err, head.RetryAfter = ReplyError(err)
		reply.Data = []byte(err.Error())
		if head.Err == geocoding.CodeUnavailable {
			r.log.Warn("geocode: request failed", "subject", m.Subject, "error", err)
		}
	}
	head.Write(reply.Header)
	if perr := r.nc.PublishMsg(reply); perr != nil {
		r.log.Error("geocode: replying failed", "subject", m.Subject, "error", perr)
	}
}

// ReplyError is the one translation of geocoding errors to the wire: an MCP
// code and a Retry-After. A request that ran out of time waiting for its
// slot is rate_limited (the line was busy), not unavailable.
func ReplyError(err error) (code geocoding.Code, retryAfter time.Duration) {
	switch {
	case errors.Is(err, ErrInvalidArgument):
		return geocoding.CodeInvalidArgument, 0
	case errors.Is(err, ErrRateLimited):
		return geocoding.CodeRateLimited, max(RetryAfter(err), time.Second)
	case errors.Is(err, context.DeadlineExceeded):
		return geocoding.CodeRateLimited, 2 * time.Second
	default:
		return geocoding.CodeUnavailable, max(RetryAfter(err), time.Second)
	}
}

// search serves SubjectSearch.
func (r *Responder) search(ctx context.Context, data []byte) ([]byte, error) {
	var req roadbookv1.SearchPlacesRequest
	if err := proto.Unmarshal(data, &req); err != nil {
		return nil, fmt.Errorf("%w: body is not a SearchPlacesRequest: %v", ErrInvalidArgument, err)
	}
	q := strings.TrimSpace(req.GetQuery())
	if n := utf8.RuneCountInString(q); n < 2 || n > 200 {
		return nil, fmt.Errorf("%w: query must be 2–200 characters, got %d", ErrInvalidArgument, n)
	}
	limit := int(req.GetLimit())
	if limit == 0 {
		limit = 5
	}
	if limit > 10 {
		return nil, fmt.Errorf("%w: limit must be at most 10, got %d", ErrInvalidArgument, limit)
	}
	places, err := r.g.Search(ctx, q, limit)
	if err != nil {
		return nil, err
	}
	resp := &roadbookv1.SearchPlacesResponse{}
	for _, p := range places {
		resp.Places = append(resp.Places, placePB(p))
	}
	return proto.Marshal(resp)
}

// reverse serves SubjectReverse. No place is an empty response, not an error.
func (r *Responder) reverse(ctx context.Context, data []byte) ([]byte, error) {
	var req roadbookv1.ReversePlaceRequest
	if err := proto.Unmarshal(data, &req); err != nil {
		return nil, fmt.Errorf("%w: body is not a ReversePlaceRequest: %v", ErrInvalidArgument, err)
	}
	loc := req.GetLocation()
	if loc == nil {
		return nil, fmt.Errorf("%w: location is required", ErrInvalidArgument)
	}
	p, err := r.g.Reverse(ctx, loc.GetLat(), loc.GetLon())
	if errors.Is(err, ErrNoPlace) {
		return proto.Marshal(&roadbookv1.ReversePlaceResponse{})
	}
	if err != nil {
		return nil, err
	}
	return proto.Marshal(&roadbookv1.ReversePlaceResponse{Place: placePB(p)})
}

func placePB(p Place) *roadbookv1.Place {
	return &roadbookv1.Place{
		Name: p.Name, DisplayName: p.DisplayName, Type: p.Type,
		Location: &roadbookv1.LatLon{Lat: p.Lat, Lon: p.Lon},
	}
}
