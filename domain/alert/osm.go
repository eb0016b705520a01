package alert

// The codes of the OpenStreetMap rules of DOMAIN §5. They need map data, so
// the worker's provider package raises them from an Overpass-compatible
// endpoint (FamilyOSM); they are named here so every code lives in one
// place. The thresholds are documented where they are applied
// (services/worker/internal/provider).
const (
	// CodeTrafficPrimaryRoad: a long share of the stage runs on trunk or
	// primary roads without a separated cycleway.
	CodeTrafficPrimaryRoad Code = "traffic_primary_road"
	// CodeTrafficFastSecondaryRoad: a long share of the stage runs on
	// secondary roads limited to 70 km/h or more without a separated
	// cycleway.
	CodeTrafficFastSecondaryRoad Code = "traffic_fast_secondary_road"
	// CodeRoughSurface: 500 m or more of the stage run on unpaved or rough
	// ways or cobbles (a warning when it is long and a large share).
	CodeRoughSurface Code = "rough_surface"
	// CodeResupplyGap: more than 30 km of the stage without a shop selling
	// food near the route.
	CodeResupplyGap Code = "resupply_gap"
	// CodeWaterGap: more than 30 km of the stage without drinking water near
	// the route.
	CodeWaterGap Code = "water_gap"
	// CodeResupplyClosedAtPassage: the food shops on the way are closed when
	// the rider passes (their opening_hours at the rider time), leaving more
	// than 30 km with none open.
	CodeResupplyClosedAtPassage Code = "resupply_closed_at_passage"
	// CodeNoBikeShop: no bicycle shop within 2 km of the stage's route.
	CodeNoBikeShop Code = "no_bike_shop"
	// CodeNoRailwayStation: no railway station within 10 km of the stage's
	// route (no bail-out by train).
	CodeNoRailwayStation Code = "no_railway_station"
	// CodeNoHealthService: no hospital, clinic, doctor or pharmacy within
	// 15 km of the stage's route.
	CodeNoHealthService Code = "no_health_service"
	// CodeFerryCrossing: the route meets a ferry line (check the timetable).
	CodeFerryCrossing Code = "ferry_crossing"
	// CodeFordCrossing: the route crosses a ford (may be impassable after
	// rain).
	CodeFordCrossing Code = "ford_crossing"
	// CodeCulturalPOI: named museums, viewpoints, castles… close to the
	// route.
	CodeCulturalPOI Code = "cultural_poi"
)
