package trip

import (
	"math"

	"github.com/roadbook/roadbook/domain/route"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// The one place where domain types meet the event messages. Decide builds
// events with the *PB functions, Evolve reads them back with the from*
// functions; both directions keep the encoding's precision (see quantize).

func pointPB(p route.Point) *eventsv1.Point {
	pb := &eventsv1.Point{Lat: p.Lat, Lon: p.Lon}
	if p.HasEle {
		e := p.Ele
		pb.EleM = &e
	}
	return pb
}

func pointFrom(pb *eventsv1.Point) route.Point {
	if pb == nil {
		return route.Point{}
	}
	p := route.Point{Lat: pb.GetLat(), Lon: pb.GetLon()}
	if pb.EleM != nil {
		p.Ele, p.HasEle = *pb.EleM, true
	}
	return p
}

// geometryPB delta-encodes an (already quantized) polyline.
func geometryPB(pts []route.Point, blobHash string) *eventsv1.Geometry {
	if blobHash != "" {
		return &eventsv1.Geometry{Encoding: &eventsv1.Geometry_BlobHash{BlobHash: blobHash}}
	}
	if len(pts) == 0 {
		return nil
	}
	pp := &eventsv1.PackedPoints{ElevationKnown: pts[0].HasEle}
	var lat, lon, ele int64
	for _, p := range pts {
		la, lo := int64(math.Round(p.Lat*1e6)), int64(math.Round(p.Lon*1e6))
		pp.LatDeltaMicrodeg = append(pp.LatDeltaMicrodeg, int32(la-lat))
		pp.LonDeltaMicrodeg = append(pp.LonDeltaMicrodeg, int32(lo-lon))
		lat, lon = la, lo
		if pp.ElevationKnown {
			e := int64(math.Round(p.Ele * 10))
			pp.EleDeltaDm = append(pp.EleDeltaDm, int32(e-ele))
			ele = e
		}
	}
	return &eventsv1.Geometry{Encoding: &eventsv1.Geometry_Packed{Packed: pp}}
}

// geometryFrom decodes a geometry; a blob reference returns its hash.
func geometryFrom(g *eventsv1.Geometry) ([]route.Point, string) {
	if g == nil {
		return nil, ""
	}
	if h := g.GetBlobHash(); h != "" {
		return nil, h
	}
	pp := g.GetPacked()
	n := len(pp.GetLatDeltaMicrodeg())
	if n == 0 || len(pp.GetLonDeltaMicrodeg()) != n {
		return nil, ""
	}
	known := pp.GetElevationKnown() && len(pp.GetEleDeltaDm()) == n
	out := make([]route.Point, n)
	var lat, lon, ele int64
	for i := 0; i < n; i++ {
		lat += int64(pp.LatDeltaMicrodeg[i])
		lon += int64(pp.LonDeltaMicrodeg[i])
		p := route.Point{Lat: float64(lat) / 1e6, Lon: float64(lon) / 1e6}
		if known {
			ele += int64(pp.EleDeltaDm[i])
			p.Ele, p.HasEle = float64(ele)/10, true
		}
		out[i] = p
	}
	return out, ""
}

var originPB = map[Origin]eventsv1.StageOrigin{
	OriginPaced:        eventsv1.StageOrigin_STAGE_ORIGIN_PACED,
	OriginSourceTour:   eventsv1.StageOrigin_STAGE_ORIGIN_SOURCE_TOUR,
	OriginInserted:     eventsv1.StageOrigin_STAGE_ORIGIN_INSERTED,
	OriginManualSplit:  eventsv1.StageOrigin_STAGE_ORIGIN_MANUAL_SPLIT,
	OriginManualPoints: eventsv1.StageOrigin_STAGE_ORIGIN_MANUAL_POINTS,
	OriginMerged:       eventsv1.StageOrigin_STAGE_ORIGIN_MERGED,
	OriginRestDay:      eventsv1.StageOrigin_STAGE_ORIGIN_REST_DAY,
}

func originFrom(o eventsv1.StageOrigin) Origin {
	for k, v := range originPB {
		if v == o {
			return k
		}
	}
	return ""
}

// stagePB encodes a stage's structural content (results are not part of it).
func stagePB(st Stage) *eventsv1.Stage {
	pb := &eventsv1.Stage{
		Index:       uint32(st.Index),
		ContentHash: st.ContentHash,
		Origin:      originPB[st.Origin],
		RestDay:     st.RestDay,
		Start:       pointPB(st.Start),
		End:         pointPB(st.End),
		DistanceM:   st.DistanceM,
		AscentM:     st.AscentM,
		DescentM:    st.DescentM,
		Geometry:    geometryPB(st.Geometry, st.GeometryBlobHash),
		Date:        st.Date.String(),
	}
	if st.OnRoute {
		from, to := st.RouteStartM, st.RouteEndM
		pb.RouteStartM, pb.RouteEndM = &from, &to
	}
	return pb
}

// stageFrom decodes a stage's structural content.
func stageFrom(pb *eventsv1.Stage) Stage {
	geom, blob := geometryFrom(pb.GetGeometry())
	st := Stage{
		Index:            int(pb.GetIndex()),
		ContentHash:      pb.GetContentHash(),
		Origin:           originFrom(pb.GetOrigin()),
		RestDay:          pb.GetRestDay(),
		Start:            pointFrom(pb.GetStart()),
		End:              pointFrom(pb.GetEnd()),
		DistanceM:        pb.GetDistanceM(),
		AscentM:          pb.GetAscentM(),
		DescentM:         pb.GetDescentM(),
		Geometry:         geom,
		GeometryBlobHash: blob,
	}
	st.Date, _ = ParseDate("date", pb.GetDate())
	if pb.RouteStartM != nil && pb.RouteEndM != nil {
		st.OnRoute, st.RouteStartM, st.RouteEndM = true, *pb.RouteStartM, *pb.RouteEndM
	}
	return st
}

var accommodationTypePB = map[AccommodationType]eventsv1.AccommodationType{
	AccommodationHotel:         eventsv1.AccommodationType_ACCOMMODATION_TYPE_HOTEL,
	AccommodationGuestHouse:    eventsv1.AccommodationType_ACCOMMODATION_TYPE_GUEST_HOUSE,
	AccommodationChalet:        eventsv1.AccommodationType_ACCOMMODATION_TYPE_CHALET,
	AccommodationHostel:        eventsv1.AccommodationType_ACCOMMODATION_TYPE_HOSTEL,
	AccommodationAlpineHut:     eventsv1.AccommodationType_ACCOMMODATION_TYPE_ALPINE_HUT,
	AccommodationCampSite:      eventsv1.AccommodationType_ACCOMMODATION_TYPE_CAMP_SITE,
	AccommodationWildernessHut: eventsv1.AccommodationType_ACCOMMODATION_TYPE_WILDERNESS_HUT,
}

func accommodationTypeFrom(t eventsv1.AccommodationType) AccommodationType {
	for k, v := range accommodationTypePB {
		if v == t {
			return k
		}
	}
	return ""
}

func settingsPB(s Settings) *eventsv1.TripSettings {
	pb := &eventsv1.TripSettings{
		FatigueFactor:          s.FatigueFactor,
		ElevationPenaltyMPerKm: s.ElevationPenaltyM,
		MaxDistancePerDayKm:    s.MaxDistancePerDayKm,
		AverageSpeedKmPerH:     s.AverageSpeedKmH,
		DepartureHour:          uint32(s.DepartureHour),
		EbikeMode:              s.EbikeMode,
		StartDate:              s.StartDate.String(),
		EndDate:                s.EndDate.String(),
	}
	for _, t := range s.AccommodationTypes {
		pb.EnabledAccommodationTypes = append(pb.EnabledAccommodationTypes, accommodationTypePB[t])
	}
	return pb
}

func settingsFrom(pb *eventsv1.TripSettings) Settings {
	s := Settings{
		FatigueFactor:       pb.GetFatigueFactor(),
		ElevationPenaltyM:   pb.GetElevationPenaltyMPerKm(),
		MaxDistancePerDayKm: pb.GetMaxDistancePerDayKm(),
		AverageSpeedKmH:     pb.GetAverageSpeedKmPerH(),
		DepartureHour:       int(pb.GetDepartureHour()),
		EbikeMode:           pb.GetEbikeMode(),
	}
	s.StartDate, _ = ParseDate("startDate", pb.GetStartDate())
	s.EndDate, _ = ParseDate("endDate", pb.GetEndDate())
	for _, t := range pb.GetEnabledAccommodationTypes() {
		s.AccommodationTypes = append(s.AccommodationTypes, accommodationTypeFrom(t))
	}
	return s
}

func accommodationPB(a Accommodation) *eventsv1.Accommodation {
	return &eventsv1.Accommodation{
		ProviderId:            a.ProviderID,
		Name:                  a.Name,
		Type:                  accommodationTypePB[a.Type],
		Location:              pointPB(a.Location),
		PriceMinEur:           a.PriceMinEUR,
		PriceMaxEur:           a.PriceMaxEUR,
		PriceExact:            a.PriceExact,
		PossibleClosed:        a.PossibleClosed,
		Website:               a.Website,
		DistanceFromStageEndM: a.DistanceFromStageEndM,
		CompletenessScore:     a.CompletenessScore,
	}
}

func accommodationFrom(pb *eventsv1.Accommodation) Accommodation {
	return Accommodation{
		ProviderID:            pb.GetProviderId(),
		Name:                  pb.GetName(),
		Type:                  accommodationTypeFrom(pb.GetType()),
		Location:              pointFrom(pb.GetLocation()),
		PriceMinEUR:           pb.GetPriceMinEur(),
		PriceMaxEUR:           pb.GetPriceMaxEur(),
		PriceExact:            pb.GetPriceExact(),
		PossibleClosed:        pb.GetPossibleClosed(),
		Website:               pb.GetWebsite(),
		DistanceFromStageEndM: pb.GetDistanceFromStageEndM(),
		CompletenessScore:     pb.GetCompletenessScore(),
	}
}

var severityName = map[eventsv1.Severity]string{
	eventsv1.Severity_SEVERITY_CRITICAL: "critical",
	eventsv1.Severity_SEVERITY_WARNING:  "warning",
	eventsv1.Severity_SEVERITY_NUDGE:    "nudge",
}

// familyPB is the events' spelling of every rule family.
var familyPB = map[Family]eventsv1.RuleFamily{
	FamilyGeometry: eventsv1.RuleFamily_RULE_FAMILY_GEOMETRY, FamilyDaylight: eventsv1.RuleFamily_RULE_FAMILY_DAYLIGHT,
	FamilyPacing: eventsv1.RuleFamily_RULE_FAMILY_PACING, FamilyCalendar: eventsv1.RuleFamily_RULE_FAMILY_CALENDAR,
	FamilyTraffic: eventsv1.RuleFamily_RULE_FAMILY_TRAFFIC, FamilySurface: eventsv1.RuleFamily_RULE_FAMILY_SURFACE,
	FamilyResupply: eventsv1.RuleFamily_RULE_FAMILY_RESUPPLY, FamilyServices: eventsv1.RuleFamily_RULE_FAMILY_SERVICES,
	FamilyCrossings: eventsv1.RuleFamily_RULE_FAMILY_CROSSINGS, FamilyCulture: eventsv1.RuleFamily_RULE_FAMILY_CULTURE,
	FamilyWeather: eventsv1.RuleFamily_RULE_FAMILY_WEATHER,
}

// familyFrom reads a recorded rule family ("" for none or an unknown one).
func familyFrom(pb eventsv1.RuleFamily) Family { return keyOf(familyPB, pb) }

// availabilityPB is the events' spelling of every availability.
var availabilityPB = map[Availability]eventsv1.ProviderAvailability{
	Available:     eventsv1.ProviderAvailability_PROVIDER_AVAILABILITY_AVAILABLE,
	NotConfigured: eventsv1.ProviderAvailability_PROVIDER_AVAILABILITY_NOT_CONFIGURED,
	Unavailable:   eventsv1.ProviderAvailability_PROVIDER_AVAILABILITY_UNAVAILABLE,
}

// availabilityFrom reads a recorded availability ("" for none).
func availabilityFrom(pb eventsv1.ProviderAvailability) Availability {
	return keyOf(availabilityPB, pb)
}

func alertFrom(pb *eventsv1.Alert) Alert {
	a := Alert{
		Code:     pb.GetCode(),
		Severity: severityName[pb.GetSeverity()],
		Message:  pb.GetMessage(),
		Family:   familyFrom(pb.GetFamily()),
	}
	if pb.GetLocation() != nil {
		p := pointFrom(pb.GetLocation())
		a.Location = &p
	}
	if len(pb.GetMetrics()) > 0 {
		a.Metrics = make(map[string]float64, len(pb.GetMetrics()))
		for k, v := range pb.GetMetrics() {
			a.Metrics[k] = v
		}
	}
	switch act := pb.GetAction(); {
	case act.GetSplitStage() != nil:
		a.Action = &AlertAction{Kind: "split_stage", AtDistanceM: act.GetSplitStage().GetAtDistanceM()}
	case act.GetSetDepartureHour() != nil:
		a.Action = &AlertAction{Kind: "set_departure_hour", DepartureHour: int(act.GetSetDepartureHour().GetDepartureHour())}
	case act.GetAddRestDay() != nil:
		a.Action = &AlertAction{Kind: "add_rest_day", AfterIndex: int(act.GetAddRestDay().GetAfterIndex())}
	}
	return a
}

var analysisReasonPB = map[AnalysisReason]eventsv1.AnalysisReason{
	AnalysisStagesComputed: eventsv1.AnalysisReason_ANALYSIS_REASON_STAGES_COMPUTED,
	AnalysisStagesEdited:   eventsv1.AnalysisReason_ANALYSIS_REASON_STAGES_EDITED,
	AnalysisUserRequested:  eventsv1.AnalysisReason_ANALYSIS_REASON_USER_REQUESTED,
}

func analysisReasonFrom(r eventsv1.AnalysisReason) AnalysisReason { return keyOf(analysisReasonPB, r) }

var sourceKindPB = map[SourceKind]eventsv1.RouteSourceKind{
	SourceKomootTour:       eventsv1.RouteSourceKind_ROUTE_SOURCE_KIND_KOMOOT_TOUR,
	SourceKomootCollection: eventsv1.RouteSourceKind_ROUTE_SOURCE_KIND_KOMOOT_COLLECTION,
	SourceStravaRoute:      eventsv1.RouteSourceKind_ROUTE_SOURCE_KIND_STRAVA_ROUTE,
	SourceRideWithGPSRoute: eventsv1.RouteSourceKind_ROUTE_SOURCE_KIND_RIDEWITHGPS_ROUTE,
}

func sourceKindFrom(k eventsv1.RouteSourceKind) SourceKind { return keyOf(sourceKindPB, k) }

// keyOf reads one of the codec's tables backwards: the domain value whose
// event spelling is v, or the zero value (an unset or unknown enum).
func keyOf[K, V comparable](m map[K]V, v V) K {
	for k, x := range m {
		if x == v {
			return k
		}
	}
	var zero K
	return zero
}

func routeSourcePB(s Source) *eventsv1.RouteSource {
	if s.Kind == "" {
		return nil
	}
	return &eventsv1.RouteSource{Kind: sourceKindPB[s.Kind], Id: s.ID, Url: s.URL}
}

func routeImportedPB(r RouteInfo) *eventsv1.RouteImported {
	pb := &eventsv1.RouteImported{
		RouteHash:      r.Hash,
		PointCount:     uint32(r.PointCount),
		DistanceM:      r.DistanceM,
		AscentM:        r.AscentM,
		DescentM:       r.DescentM,
		ElevationKnown: r.ElevationKnown,
		Title:          r.Title,
	}
	for _, t := range r.Tours {
		pb.SourceTours = append(pb.SourceTours, &eventsv1.SourceTour{
			TourId: t.TourID, Title: t.Title,
			StartPointIndex: uint32(t.StartPoint), EndPointIndex: uint32(t.EndPoint),
		})
	}
	return pb
}

func routeInfoFrom(pb *eventsv1.RouteImported) RouteInfo {
	r := RouteInfo{
		Hash:           pb.GetRouteHash(),
		PointCount:     int(pb.GetPointCount()),
		DistanceM:      pb.GetDistanceM(),
		AscentM:        pb.GetAscentM(),
		DescentM:       pb.GetDescentM(),
		ElevationKnown: pb.GetElevationKnown(),
		Title:          pb.GetTitle(),
	}
	for _, t := range pb.GetSourceTours() {
		r.Tours = append(r.Tours, SourceTour{
			TourID: t.GetTourId(), Title: t.GetTitle(),
			StartPoint: int(t.GetStartPointIndex()), EndPoint: int(t.GetEndPointIndex()),
		})
	}
	return r
}

func computedForPB(k StagesKey) *eventsv1.ComputedFor {
	return &eventsv1.ComputedFor{RouteHash: k.RouteHash, PacingSettingsHash: k.PacingHash}
}

func computedForFrom(pb *eventsv1.ComputedFor) StagesKey {
	return StagesKey{RouteHash: pb.GetRouteHash(), PacingHash: pb.GetPacingSettingsHash()}
}
