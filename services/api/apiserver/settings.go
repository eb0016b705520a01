package apiserver

import (
	"github.com/roadbook/roadbook/domain/trip"
	roadbookv1 "github.com/roadbook/roadbook/proto/gen/roadbook/v1"
)

// settingsPatch turns a validated settings input into a domain patch.
func settingsPatch(in *roadbookv1.TripSettingsInput) (trip.SettingsPatch, error) {
	var p trip.SettingsPatch
	if in == nil {
		return p, nil
	}
	p.FatigueFactor = in.FatigueFactor
	p.ElevationPenaltyM = in.ElevationPenaltyMPerKm
	p.MaxDistancePerDayKm = in.MaxDistancePerDayKm
	p.AverageSpeedKmH = in.AverageSpeedKmPerH
	if in.DepartureHour != nil {
		h := int(*in.DepartureHour)
		p.DepartureHour = &h
	}
	p.EbikeMode = in.EbikeMode
	if in.StartDate != nil {
		d, err := trip.ParseDate("settings.startDate", *in.StartDate)
		if err != nil {
			return p, err
		}
		p.StartDate = &d
	}
	if in.EndDate != nil {
		d, err := trip.ParseDate("settings.endDate", *in.EndDate)
		if err != nil {
			return p, err
		}
		p.EndDate = &d
	}
	if in.EnabledAccommodationTypes != nil {
		p.AccommodationTypes = []trip.AccommodationType{}
		for _, t := range in.EnabledAccommodationTypes.GetTypes() {
			p.AccommodationTypes = append(p.AccommodationTypes, accTypeFromPB(t))
		}
	}
	return p, nil
}
