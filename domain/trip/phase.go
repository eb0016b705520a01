package trip

// Phase is where a trip stands as a list shows it: its status (draft or
// ready) unless a computation it waits for is running or failed, which the
// status alone cannot tell.
type Phase string

// The phases.
const (
	PhaseComputing Phase = "computing"
	PhaseFailed    Phase = "failed"
	PhaseDraft     Phase = Phase(StatusDraft)
	PhaseReady     Phase = Phase(StatusReady)
)

// Phase is failed when the route import failed, or the stages failed and
// none exist; computing while either is pending; else the status.
func (s State) Phase() Phase {
	switch {
	case s.RouteImport.Status == ComputationFailed, s.StagesProgress.Status == ComputationFailed && len(s.Stages) == 0:
		return PhaseFailed
	case s.RouteImport.Status == ComputationRequested, s.StagesProgress.Status == ComputationRequested:
		return PhaseComputing
	}
	return Phase(s.Status())
}
