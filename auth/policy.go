package auth

import "github.com/roadbook/roadbook/proto/gen/roadbook/v1/roadbookv1connect"

// Public marks a procedure that needs no token (share links).
const Public Scope = "public"

// Policy maps every Connect procedure to the scope it requires (or Public).
// A procedure missing from the policy is refused: the table fails closed, and
// a test fails on any RPC of the service descriptors without an entry.
type Policy map[string]Scope

// DefaultPolicy is the API's table: reads need trips:read, writes
// trips:write, share links are public.
func DefaultPolicy() Policy {
	const r, w = ScopeRead, ScopeWrite
	return Policy{
		roadbookv1connect.TripServiceListTripsProcedure:            r,
		roadbookv1connect.TripServiceCreateTripFromUrlProcedure:    w,
		roadbookv1connect.TripServiceCreateTripFromUploadProcedure: w,
		roadbookv1connect.TripServiceGetTripProcedure:              r,
		roadbookv1connect.TripServiceGetStageProcedure:             r,
		roadbookv1connect.TripServiceListStagesProcedure:           r,
		roadbookv1connect.TripServiceGetRouteGeometryProcedure:     r,
		roadbookv1connect.TripServiceUpdateTripSettingsProcedure:   w,
		roadbookv1connect.TripServiceDeleteTripProcedure:           w,
		roadbookv1connect.TripServiceDuplicateTripProcedure:        w,
		roadbookv1connect.TripServiceAnalyzeTripProcedure:          w,

		roadbookv1connect.StageEditServiceInsertStageProcedure:        w,
		roadbookv1connect.StageEditServiceUpdateStageProcedure:        w,
		roadbookv1connect.StageEditServiceMoveStageProcedure:          w,
		roadbookv1connect.StageEditServiceDeleteStageProcedure:        w,
		roadbookv1connect.StageEditServiceAddRestDayProcedure:         w,
		roadbookv1connect.StageEditServiceAddWaypointProcedure:        w,
		roadbookv1connect.StageEditServiceRestoreStageLayoutProcedure: w,

		roadbookv1connect.AccommodationServiceChooseAccommodationProcedure:    w,
		roadbookv1connect.AccommodationServiceSetManualAccommodationProcedure: w,
		roadbookv1connect.AccommodationServiceRescanAccommodationsProcedure:   w,

		roadbookv1connect.ShareServiceShareTripProcedure:   w,
		roadbookv1connect.ShareServiceUnshareTripProcedure: w,
		roadbookv1connect.ShareServiceGetShareProcedure:    r,

		roadbookv1connect.PublicShareServiceGetSharedTripProcedure:    Public,
		roadbookv1connect.PublicShareServiceGetSharedRouteProcedure:   Public,
		roadbookv1connect.PublicShareServiceExportSharedTripProcedure: Public,

		roadbookv1connect.ExportServiceExportTripProcedure: r,

		roadbookv1connect.GeocodingServiceSearchPlacesProcedure: r,
		roadbookv1connect.GeocodingServiceReversePlaceProcedure: r,

		roadbookv1connect.AccountServiceExportAccountProcedure: r,
		roadbookv1connect.AccountServiceDeleteAccountProcedure: w,

		roadbookv1connect.WatchServiceWatchTripProcedure: r,
	}
}
