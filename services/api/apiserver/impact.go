package apiserver

import (
	"fmt"

	"github.com/roadbook/roadbook/domain/trip"
	"github.com/roadbook/roadbook/planner"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// impact is what a write would lose, computed by comparing the state before
// with the state Decide's events would fold to (nothing is written).
func (v view) impact(before, after trip.State) *roadbookv1.Impact {
	im := &roadbookv1.Impact{StageCountBefore: uint32(len(before.Stages))}
	if after.Deleted {
		im.TripDeleted = true
		n := uint32(0)
		im.StageCountAfter = &n
	} else {
		n := uint32(len(after.Stages))
		im.StageCountAfter = &n
	}
	recut := !after.Deleted && before.Settings.PacingHash() != after.Settings.PacingHash()
	if recut {
		im.StagesRecomputed = true
		im.StageCountAfter = nil
	}
	kept := map[string]bool{}
	if !after.Deleted && !recut {
		for _, st := range after.Stages {
			kept[st.ContentHash] = true
		}
	}
	// Nights and waypoints are lost when the state after no longer holds
	// them: an edit moves waypoints to the nearest new stage, and a restore
	// may bring a night back, so a replaced stage alone loses neither.
	nights, waypoints := map[string]bool{}, map[string]bool{}
	if !after.Deleted {
		for _, st := range after.Stages {
			if st.Chosen != nil {
				nights[nightKey(st.Chosen)] = true
			}
			for _, w := range st.Waypoints {
				waypoints[w.ID] = true
			}
		}
	}
	for _, st := range before.Stages {
		if st.Chosen != nil && !nights[nightKey(st.Chosen)] {
			im.AccommodationsLost = append(im.AccommodationsLost, &roadbookv1.LostAccommodation{
				StageIndex: uint32(st.Index), Name: st.Chosen.Name, Manual: st.Chosen.Manual})
		}
		for _, w := range st.Waypoints {
			if !waypoints[w.ID] {
				im.WaypointsLost++
			}
		}
		if kept[st.ContentHash] {
			continue
		}
		if st.Origin.Manual() && (recut || after.Deleted) {
			im.ManualStageEditsLost++
		}
		if st.Analyzed && !after.Deleted {
			im.AnalysesInvalidated++
		}
	}
	if before.Share.Active() && (after.Deleted || !after.Share.Active()) {
		im.ShareLinkRevoked = v.baseURL + "/s/" + before.Share.Code
	}
	if b, a := before.EndDate(), after.EndDate(); !after.Deleted && a != b {
		im.EndDateAfter = a.String()
	}
	im.Summary = summary(im)
	return im
}

// nightKey identifies a chosen night across states: the place and where it is.
func nightKey(c *trip.ChosenAccommodation) string {
	return fmt.Sprintf("%s|%s|%.6f|%.6f", c.ProviderID, c.Name, c.Location.Lat, c.Location.Lon)
}

// summary writes one sentence per item of the impact (no third-party text).
func summary(im *roadbookv1.Impact) []string {
	var out []string
	if im.TripDeleted {
		out = append(out, "The trip and all its data will be deleted.")
	}
	if im.TripsDeleted > 0 {
		out = append(out, fmt.Sprintf("%d trips will be deleted.", im.TripsDeleted))
	}
	if im.StagesRecomputed {
		out = append(out, "Every stage will be recomputed.")
	} else if im.StageCountAfter != nil && *im.StageCountAfter != im.StageCountBefore && !im.TripDeleted {
		out = append(out, fmt.Sprintf("The trip goes from %d to %d stages.", im.StageCountBefore, *im.StageCountAfter))
	}
	if im.ManualStageEditsLost > 0 {
		out = append(out, fmt.Sprintf("%d manually edited stages will be replaced.", im.ManualStageEditsLost))
	}
	if n := len(im.AccommodationsLost); n > 0 {
		out = append(out, fmt.Sprintf("%d chosen accommodations will be discarded.", n))
	}
	if im.WaypointsLost > 0 {
		out = append(out, fmt.Sprintf("%d waypoints will be discarded.", im.WaypointsLost))
	}
	if im.AnalysesInvalidated > 0 {
		out = append(out, fmt.Sprintf("%d stage analyses will be recomputed.", im.AnalysesInvalidated))
	}
	if im.ShareLinkRevoked != "" {
		out = append(out, "The share link will stop working.")
	}
	if im.EndDateAfter != "" {
		out = append(out, "The trip will end on "+im.EndDateAfter+".")
	}
	return out
}

// versions is a write's version answer for the version the caller sent: a
// preview answers the trip's version now, unchanged, and the impact; a
// write the version after it and whether it moved.
func (v view) versions(o planner.Outcome, sent int64) (version int64, unchanged bool, impact *roadbookv1.Impact) {
	if o.Preview {
		return o.Before.Version, true, v.impact(o.Before, o.After)
	}
	return o.After.Version, o.After.Version == sent, nil
}
