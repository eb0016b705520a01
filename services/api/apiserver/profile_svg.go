package apiserver

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/roadbook/roadbook/domain/route"
	"github.com/roadbook/roadbook/services/api/routesvg"
	"github.com/roadbook/roadbook/services/api/sharepage"
)

// serveTripProfile answers GET /trips/{id}/profile.svg (the owner's
// elevation profile, the share page's drawing) behind auth.Middleware with
// trips:read. ?day=n (1-based) draws one day instead of the whole trip.
// Another user's trip answers exactly like a missing one.
func (c *shared) serveTripProfile(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := uuid.Parse(id); err != nil {
		httpPlain(w, http.StatusBadRequest, "trip id: must be a UUID")
		return
	}
	l, err := c.planner.Trip(r.Context(), id)
	if err != nil {
		if isNotFound(err) {
			httpPlain(w, http.StatusNotFound, notFoundMessage)
			return
		}
		c.log.ErrorContext(r.Context(), "profile failed", "error", err, "trip_id", id)
		httpPlain(w, http.StatusInternalServerError, "internal error")
		return
	}
	s := l.State
	var pts []route.Point
	opts := routesvg.ProfileOptions{Title: "Elevation profile of " + s.Title}
	if q := r.URL.Query().Get("day"); q != "" {
		day, err := strconv.Atoi(q)
		if err != nil || day < 1 || day > len(s.Stages) {
			httpPlain(w, http.StatusBadRequest, "day: must be a day number from 1 to "+strconv.Itoa(len(s.Stages)))
			return
		}
		if pts, err = c.planner.StagePoints(r.Context(), s.Stages[day-1]); err != nil {
			c.log.ErrorContext(r.Context(), "profile failed", "error", err, "trip_id", id)
			httpPlain(w, http.StatusInternalServerError, "internal error")
			return
		}
		opts.Title = "Elevation profile of day " + q + " of " + s.Title
	} else {
		var along float64
		for _, st := range s.Stages {
			if st.RestDay {
				continue
			}
			if along > 0 {
				opts.Marks = append(opts.Marks, along)
				opts.MarkLabels = append(opts.MarkLabels, strconv.Itoa(st.Index+1))
			}
			sp, err := c.planner.StagePoints(r.Context(), st)
			if err != nil {
				c.log.ErrorContext(r.Context(), "profile failed", "error", err, "trip_id", id)
				httpPlain(w, http.StatusInternalServerError, "internal error")
				return
			}
			along += route.Length(sp)
		}
		if pts, err = c.planner.RouteLine(r.Context(), s); err != nil {
			c.log.ErrorContext(r.Context(), "profile failed", "error", err, "trip_id", id)
			httpPlain(w, http.StatusInternalServerError, "internal error")
			return
		}
	}
	svg, err := routesvg.Profile(pts, opts)
	switch {
	case errors.Is(err, routesvg.ErrNoElevation):
		httpPlain(w, http.StatusUnprocessableEntity, "the route has no elevation data")
		return
	case errors.Is(err, routesvg.ErrTooShort):
		httpPlain(w, http.StatusUnprocessableEntity, "the trip has no route to draw yet")
		return
	case err != nil:
		c.log.ErrorContext(r.Context(), "profile failed", "error", err, "trip_id", id)
		httpPlain(w, http.StatusInternalServerError, "internal error")
		return
	}
	sharepage.WriteHeaders(w, "image/svg+xml", "private, no-cache")
	w.Header().Set("Vary", "Authorization")
	_, _ = w.Write(svg)
}

// httpPlain is a short text answer with the browser headers.
func httpPlain(w http.ResponseWriter, status int, msg string) {
	sharepage.WriteHeaders(w, "text/plain; charset=utf-8", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}
