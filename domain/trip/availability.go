package trip

// Availability says whether a provider answered for a rule family of a
// stage, or for an accommodation search, so "nothing found" and "not
// checked" never look alike (DOMAIN §5).
type Availability string

// The three answers.
const (
	// Available: the provider answered; no alert means nothing was found.
	Available Availability = "available"
	// NotConfigured: no provider is configured for it.
	NotConfigured Availability = "not_configured"
	// Unavailable: the provider was configured but failed; a reason says
	// why.
	Unavailable Availability = "unavailable"
)
