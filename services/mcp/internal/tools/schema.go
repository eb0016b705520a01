package tools

import (
	"github.com/google/jsonschema-go/jsonschema"
)

// prop returns the property schema at path (nested object properties),
// panicking at startup when a tool names a property its struct lacks.
func prop(s *jsonschema.Schema, path ...string) *jsonschema.Schema {
	for _, p := range path {
		next, ok := s.Properties[p]
		if !ok {
			panic("schema has no property " + p)
		}
		s = next
	}
	return s
}

func f64(f float64) *float64 { return &f }
func intp(i int) *int        { return &i }

// tripIDSchema constrains a tripId argument.
func tripIDSchema(s *jsonschema.Schema) {
	p := prop(s, "tripId")
	p.Pattern = uuidRe.String()
	p.Description = "the trip's id (UUID), from list_trips or create_trip"
}

// versionSchema constrains a version argument.
func versionSchema(s *jsonschema.Schema) {
	p := prop(s, "version")
	p.Minimum = f64(1)
	p.Description = "the trip version your decision was made on, from get_trip (or the last write's answer); never guess it"
}

// idempotencySchema documents the optional idempotencyKey.
func idempotencySchema(s *jsonschema.Schema) {
	p := prop(s, "idempotencyKey")
	p.Pattern = "^[A-Za-z0-9_-]{8,128}$"
	p.Description = "optional; leave it out: Roadbook derives one from your arguments, so a retry within 5 minutes answers the first answer instead of acting twice " +
		"(unless your own later write made that answer false: then it acts anew). A key you send is replayed exactly, whatever happened since"
}

// stageIndexSchema constrains a 0-based stage index.
func indexSchema(s *jsonschema.Schema, name, desc string) {
	p := prop(s, name)
	p.Minimum, p.Maximum = f64(0), f64(999)
	p.Description = desc
}

// settingsSchema constrains a settings input object.
func settingsSchema(p *jsonschema.Schema) {
	p.Description = "only the fields present change"
	prop(p, "maxDistancePerDayKm").Minimum, prop(p, "maxDistancePerDayKm").Maximum = f64(30), f64(300)
	prop(p, "averageSpeedKmh").Minimum, prop(p, "averageSpeedKmh").Maximum = f64(5), f64(50)
	prop(p, "fatigueFactor").Minimum, prop(p, "fatigueFactor").Maximum = f64(0.5), f64(1)
	prop(p, "elevationPenaltyMPerKm").ExclusiveMinimum, prop(p, "elevationPenaltyMPerKm").Maximum = f64(0), f64(10000)
	prop(p, "departureHour").Minimum, prop(p, "departureHour").Maximum = f64(0), f64(23)
	prop(p, "dailyRidingHours").Minimum, prop(p, "dailyRidingHours").Maximum = f64(1), f64(16)
	prop(p, "restDayEvery").Minimum, prop(p, "restDayEvery").Maximum = f64(0), f64(30)
	prop(p, "preset").Enum = []any{"beginner", "intermediate", "expert", "custom"}
	date := `^([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?$`
	prop(p, "startDate").Pattern = date
	prop(p, "endDate").Pattern = date
	at := prop(p, "accommodationTypes")
	at.MinItems, at.MaxItems, at.UniqueItems = intp(1), intp(7), true
	at.Items.Enum = accommodationTypes
}
