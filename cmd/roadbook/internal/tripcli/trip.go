// Package tripcli is `roadbook trip` and `roadbook token`: a command-line
// client of the Connect API, used the way a frontend would use it — create a
// trip and follow its progress, list, show (the digest with an elevation
// sparkline per stage) and export. It knows the API only through its Connect
// clients and a dev instance only through its dev.json (package devstate).
package tripcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"connectrpc.com/connect"

	"github.com/roadbook/roadbook/cmd/roadbook/internal/envflag"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// RunTrip dispatches `roadbook trip <create|list|show|export>`.
func RunTrip(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	subs := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"create": tripCreate, "list": tripList, "show": tripShow, "export": tripExport,
	}
	if len(args) == 0 || subs[args[0]] == nil {
		if len(args) > 0 && args[0] != "-h" && args[0] != "--help" {
			fmt.Fprintf(stderr, "roadbook trip: unknown subcommand %q\n", args[0])
		}
		fmt.Fprintln(stderr, "usage: roadbook trip create --gpx FILE | --url URL\n       roadbook trip list\n       roadbook trip show ID\n       roadbook trip export ID --format gpx|fit|text [-o FILE]")
		return envflag.ErrUsage
	}
	return subs[args[0]](ctx, args[1:], stdout, stderr)
}

// tripCreate uploads a GPX file or imports a URL, follows the computation
// on WatchTrip with a progress bar, then prints the digest.
func tripCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := envflag.New("trip create", stderr)
	var cf clientFlags
	cf.register(fs)
	gpx := fs.String("gpx", "", "GPX file to upload")
	url := fs.String("url", "", "Komoot tour/collection, Strava route or RideWithGPS route URL")
	title := fs.String("title", "", "trip title (default: the route's)")
	preset := fs.String("preset", "", "rider preset: beginner, intermediate (the default) or expert (docs/design/PACING.md)")
	timeout := fs.Duration("timeout", 10*time.Minute, "how long to wait for the roadbook")
	noWait := fs.Bool("no-wait", false, "print the trip id and return without waiting")
	if err := envflag.Parse(fs, args); err != nil {
		return err
	}
	if (*gpx == "") == (*url == "") {
		fmt.Fprintln(stderr, "roadbook trip create: give exactly one of --gpx FILE or --url URL")
		return envflag.ErrUsage
	}
	var settings *roadbookv1.TripSettingsInput
	if *preset != "" {
		p, ok := presets[*preset]
		if !ok {
			fmt.Fprintf(stderr, "roadbook trip create: --preset %q: want beginner, intermediate or expert\n", *preset)
			return envflag.ErrUsage
		}
		settings = &roadbookv1.TripSettingsInput{Preset: &p}
	}
	c, err := cf.clients()
	if err != nil {
		return err
	}
	var id string
	if *gpx != "" {
		content, err := os.ReadFile(*gpx)
		if err != nil {
			return err
		}
		resp, err := c.trips.CreateTripFromUpload(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUploadRequest{
			Filename: filepath.Base(*gpx), ContentType: "application/gpx+xml", Content: content, Title: *title, Settings: settings}))
		if err != nil {
			return apiError(err)
		}
		id = resp.Msg.GetTripId()
	} else {
		resp, err := c.trips.CreateTripFromUrl(ctx, connect.NewRequest(&roadbookv1.CreateTripFromUrlRequest{Url: *url, Title: *title, Settings: settings}))
		if err != nil {
			return apiError(err)
		}
		id = resp.Msg.GetTripId()
	}
	fmt.Fprintf(stderr, "trip %s created\n", id)
	if *noWait {
		fmt.Fprintln(stdout, id)
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	digest, err := c.follow(wctx, id, stderr)
	if err != nil {
		return err
	}
	printDigest(stdout, digest)
	if digest.GetStatus() == roadbookv1.TripStatus_TRIP_STATUS_FAILED {
		return errors.New("the trip failed (see its alerts)")
	}
	return nil
}

// follow watches a trip until its roadbook is done, drawing the progress
// on w (one redrawn line on a terminal, a line per change otherwise), and
// returns the final digest. A dropped stream resumes where it stopped.
func (c *apiClients) follow(ctx context.Context, id string, w io.Writer) (*roadbookv1.TripDigest, error) {
	redraw := isTerminal(w)
	var resume, last string
	for {
		stream, err := c.watch.WatchTrip(ctx, connect.NewRequest(&roadbookv1.WatchTripRequest{TripId: id, ResumeToken: resume}))
		if err != nil {
			return nil, apiError(err)
		}
		for stream.Receive() {
			m := stream.Msg()
			resume = m.GetResumeToken()
			t := m.GetTrip()
			if t == nil { // deleted while watched
				_ = stream.Close()
				return nil, fmt.Errorf("trip %s was deleted", id)
			}
			line := progressLine(t.GetProgress(), 24)
			switch {
			case redraw:
				fmt.Fprintf(w, "\r\033[K%s", line)
			case line != last:
				fmt.Fprintln(w, line)
			}
			last = line
			if roadbookDone(t) {
				_ = stream.Close()
				if redraw {
					fmt.Fprintln(w)
				}
				return t, nil
			}
		}
		err = stream.Err()
		_ = stream.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("gave up waiting for trip %s: %w", id, ctx.Err())
		}
		if err != nil && connect.CodeOf(err) != connect.CodeUnavailable {
			return nil, apiError(err)
		}
		// The server ended the stream (a drain): resume after a pause.
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// isTerminal reports whether w is a character device (a redrawn progress
// line makes sense there, not in a log or a pipe).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// tripList prints the caller's trips, newest first, every page.
func tripList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := envflag.New("trip list", stderr)
	var cf clientFlags
	cf.register(fs)
	if err := envflag.Parse(fs, args); err != nil {
		return err
	}
	c, err := cf.clients()
	if err != nil {
		return err
	}
	var all []*roadbookv1.TripSummary
	tok := ""
	for {
		resp, err := c.trips.ListTrips(ctx, connect.NewRequest(&roadbookv1.ListTripsRequest{PageSize: 100, PageToken: tok}))
		if err != nil {
			return apiError(err)
		}
		all = append(all, resp.Msg.GetTrips()...)
		if tok = resp.Msg.GetNextPageToken(); tok == "" {
			break
		}
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "no trips yet: roadbook trip create --gpx FILE")
		return nil
	}
	fmt.Fprintf(stdout, "%-36s  %-9s  %8s  %7s  %6s  %s\n", "ID", "STATUS", "KM", "UP M", "STAGES", "TITLE")
	for _, t := range all {
		fmt.Fprintf(stdout, "%-36s  %-9s  %8.1f  %7.0f  %6d  %s\n", t.GetTripId(), statusName(t.GetStatus()),
			t.GetDistanceM()/1000, t.GetAscentM(), t.GetStageCount(), t.GetTitle())
	}
	return nil
}

// tripShow prints a trip's digest with an elevation profile per stage,
// drawn from the route geometry of each stage on one shared scale.
func tripShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := envflag.New("trip show", stderr)
	var cf clientFlags
	cf.register(fs)
	width := fs.Int("width", 48, "columns of each stage's elevation profile")
	id, err := envflag.ParseOne(fs, args)
	if err != nil {
		return err
	}
	if id == "" {
		fmt.Fprintln(stderr, "usage: roadbook trip show ID")
		return envflag.ErrUsage
	}
	c, err := cf.clients()
	if err != nil {
		return err
	}
	resp, err := c.trips.GetTrip(ctx, connect.NewRequest(&roadbookv1.GetTripRequest{TripId: id}))
	if err != nil {
		return apiError(err)
	}
	t := resp.Msg.GetTrip()
	printDigest(stdout, t)
	var profiles [][]float32
	var rows []*roadbookv1.StageDigest
	for _, s := range t.GetStages() {
		if s.GetRestDay() {
			continue
		}
		idx := s.GetIndex()
		g, err := c.trips.GetRouteGeometry(ctx, connect.NewRequest(&roadbookv1.GetRouteGeometryRequest{
			TripId: id, StageIndex: &idx, MaxPoints: new(uint32(max(2, 4*uint32(*width))))}))
		if err != nil {
			return apiError(err)
		}
		if !g.Msg.GetGeometry().GetElevationKnown() {
			fmt.Fprintln(stdout, "\n(no elevation profile: the route has no elevation data)")
			return nil
		}
		profiles = append(profiles, g.Msg.GetGeometry().GetElevationsM())
		rows = append(rows, s)
	}
	if len(rows) == 0 {
		return nil
	}
	lo, hi := elevationRange(profiles)
	fmt.Fprintf(stdout, "\nElevation profiles (one scale, %.0f–%.0f m):\n", lo, hi)
	for i, s := range rows {
		fmt.Fprintf(stdout, "  %3d  %s  %5.0f–%-5.0f m\n", s.GetIndex()+1, sparkline(profiles[i], *width, lo, hi),
			minOf(profiles[i]), maxOf(profiles[i]))
	}
	return nil
}

// tripExport writes a trip's GPX, FIT or text export to stdout or -o FILE.
func tripExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := envflag.New("trip export", stderr)
	var cf clientFlags
	cf.register(fs)
	format := fs.String("format", "gpx", "gpx, fit or text")
	out := fs.String("o", "", "output file (default: stdout)")
	stage := fs.Int("stage", 0, "export only this stage (1-based; 0: the whole trip)")
	id, err := envflag.ParseOne(fs, args)
	if err != nil {
		return err
	}
	if id == "" {
		fmt.Fprintln(stderr, "usage: roadbook trip export ID --format gpx|fit|text [-o FILE]")
		return envflag.ErrUsage
	}
	formats := map[string]roadbookv1.ExportFormat{"gpx": roadbookv1.ExportFormat_EXPORT_FORMAT_GPX,
		"fit": roadbookv1.ExportFormat_EXPORT_FORMAT_FIT, "text": roadbookv1.ExportFormat_EXPORT_FORMAT_TEXT}
	f, ok := formats[*format]
	if !ok {
		fmt.Fprintf(stderr, "roadbook trip export: --format %q is not gpx, fit or text\n", *format)
		return envflag.ErrUsage
	}
	if *stage < 0 {
		fmt.Fprintf(stderr, "roadbook trip export: --stage %d is not a stage number\n", *stage)
		return envflag.ErrUsage
	}
	c, err := cf.clients()
	if err != nil {
		return err
	}
	req := &roadbookv1.ExportTripRequest{TripId: id, Format: f}
	if *stage > 0 {
		req.StageIndex = new(uint32(*stage - 1))
	}
	resp, err := c.exports.ExportTrip(ctx, connect.NewRequest(req))
	if err != nil {
		return apiError(err)
	}
	content := resp.Msg.GetFile().GetContent()
	if *out == "" {
		if f == roadbookv1.ExportFormat_EXPORT_FORMAT_FIT && isTerminal(stdout) {
			return errors.New("a FIT file is binary: write it with -o FILE.fit")
		}
		_, err := stdout.Write(content)
		return err
	}
	if err := os.WriteFile(*out, content, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s (%d bytes)\n", *out, len(content))
	return nil
}

// printDigest prints a trip's digest: totals, then one line per stage.
func printDigest(w io.Writer, t *roadbookv1.TripDigest) {
	fmt.Fprintf(w, "%s\n  id %s · version %d · %s\n", t.GetTitle(), t.GetTripId(), t.GetVersion(), statusName(t.GetStatus()))
	fmt.Fprintf(w, "  %.1f km · ↑ %.0f m · ↓ %.0f m · %d stages", t.GetDistanceM()/1000, t.GetAscentM(), t.GetDescentM(), len(t.GetStages()))
	if t.GetPartial() {
		fmt.Fprint(w, " · still computing")
	}
	fmt.Fprintln(w)
	if st := t.GetSettings(); st != nil {
		fmt.Fprintf(w, "  rider %s · %g km/h on the flat · %g h a day · %g km cap · fatigue %g\n", presetName(st.GetPreset()),
			st.GetAverageSpeedKmPerH(), st.GetDailyRidingHours(), st.GetMaxDistancePerDayKm(), st.GetFatigueFactor())
	}
	for _, a := range t.GetTripAlerts() {
		fmt.Fprintf(w, "  ! %s\n", a.GetMessage())
	}
	if len(t.GetStages()) == 0 {
		return
	}
	fmt.Fprintf(w, "\n  %3s  %-10s  %7s  %6s  %6s  %5s  %s\n", "#", "DATE", "KM", "UP M", "DOWN M", "HOURS", "FROM → TO")
	for _, s := range t.GetStages() {
		date := s.GetDate()
		if date == "" {
			date = "-"
		}
		if s.GetRestDay() {
			// Under FROM → TO: where the rider spends the day.
			fmt.Fprintf(w, "  %3d  %-10s  %-30s  staying at %s\n", s.GetIndex()+1, date, "rest day", orPending(s.GetEndLabel()))
			continue
		}
		from, to := orPending(s.GetStartLabel()), orPending(s.GetEndLabel())
		fmt.Fprintf(w, "  %3d  %-10s  %7.1f  %6.0f  %6.0f  %5.1f  %s → %s\n", s.GetIndex()+1, date,
			s.GetDistanceM()/1000, s.GetAscentM(), s.GetDescentM(), s.GetRidingHours(), from, to)
	}
}

// presets are the rider presets --preset names (docs/design/PACING.md
// "Presets").
var presets = map[string]roadbookv1.RiderPreset{
	"beginner":     roadbookv1.RiderPreset_RIDER_PRESET_BEGINNER,
	"intermediate": roadbookv1.RiderPreset_RIDER_PRESET_INTERMEDIATE,
	"expert":       roadbookv1.RiderPreset_RIDER_PRESET_EXPERT,
}

// presetName is the preset a trip's values match, or "custom".
func presetName(p roadbookv1.RiderPreset) string {
	for name, v := range presets {
		if v == p {
			return name
		}
	}
	return "custom"
}

// orPending is a stage end's label, or "(naming…)" while the geocoder has
// not answered yet: a label always says where (a place, "23 km SE of Otta"
// or coordinates), so an empty one only means "not yet", never "nowhere".
func orPending(s string) string {
	if s == "" {
		return "(naming…)"
	}
	return s
}

func minOf(v []float32) float32 {
	if len(v) == 0 {
		return 0
	}
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []float32) float32 {
	if len(v) == 0 {
		return 0
	}
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
