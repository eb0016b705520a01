package trip

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/alert"
	eventsv1 "github.com/roadbook/roadbook/proto/gen/roadbook/events/v1"
)

// alertCodes reads every `Code = "…"` constant of package alert from its
// source, so a code added there without a family fails this test.
func alertCodes(t *testing.T) []alert.Code {
	t.Helper()
	files, err := filepath.Glob("../alert/*.go")
	require.NoError(t, err)
	var codes []alert.Code
	fset := token.NewFileSet()
	for _, f := range files {
		if filepath.Ext(f) != ".go" || len(f) > 8 && f[len(f)-8:] == "_test.go" {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || vs.Type == nil {
				return true
			}
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
				return true
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, err := strconv.Unquote(lit.Value)
					require.NoError(t, err)
					codes = append(codes, alert.Code(s))
				}
			}
			return true
		})
	}
	return codes
}

func TestFamilies(t *testing.T) {
	t.Parallel()

	t.Run("every alert code the rules can raise has a family", func(t *testing.T) {
		t.Parallel()
		codes := alertCodes(t)
		require.Len(t, codes, len(codeFamily), "the family table lists exactly the codes of package alert")
		for _, c := range codes {
			require.Contains(t, Families(), FamilyOf(c), "code %s", c)
		}
	})

	t.Run("the three data sources share the families out, each exactly once", func(t *testing.T) {
		t.Parallel()
		var all []Family
		for _, src := range alert.RuleFamilies() {
			fs := SourceFamilies(src)
			require.NotEmpty(t, fs, "source %s", src)
			for _, f := range fs {
				require.Equal(t, src != alert.FamilyGeometry, f.Provided(), "%s of %s", f, src)
			}
			all = append(all, fs...)
		}
		require.ElementsMatch(t, Families(), all)
	})

	t.Run("every family and availability has its event spelling, and reads back", func(t *testing.T) {
		t.Parallel()
		for _, f := range Families() {
			pb, ok := familyPB[f]
			require.True(t, ok, "family %s", f)
			require.Equal(t, f, familyFrom(pb))
		}
		require.Len(t, familyPB, len(eventsv1.RuleFamily_name)-1, "every RuleFamily but UNSPECIFIED")
		for _, a := range []Availability{Available, NotConfigured, Unavailable} {
			require.Equal(t, a, availabilityFrom(availabilityPB[a]))
		}
		require.Len(t, availabilityPB, len(eventsv1.ProviderAvailability_name)-1)
		require.Empty(t, familyFrom(eventsv1.RuleFamily_RULE_FAMILY_UNSPECIFIED))
	})

	t.Run("an alert keeps its family, point, metric and fix", func(t *testing.T) {
		t.Parallel()
		a := AlertFrom(alert.Alert{Code: alert.CodeSteepGradient, Severity: alert.SeverityWarning, Message: "steep", StageIndex: 2,
			HasPoint: true, Lat: 60, Lon: 10, Value: 14, Action: &alert.Action{Kind: alert.ActionSplitStage, AtKm: 42.5}})
		require.Equal(t, FamilyGeometry, a.Family)
		require.Equal(t, 60.0, a.Location.Lat)
		require.Equal(t, map[string]float64{"value": 14}, a.Metrics)
		require.Equal(t, &AlertAction{Kind: "split_stage", AtDistanceM: 42500}, a.Action)
		rest := AlertFrom(alert.Alert{Code: alert.CodeRestDaySuggested, StageIndex: alert.TripWide, Action: &alert.Action{Kind: alert.ActionInsertRestDay}})
		require.Equal(t, FamilyPacing, rest.Family)
		require.Equal(t, 0, rest.Action.AfterIndex, "a trip-wide rest day goes after the first day")
		require.True(t, slices.Contains(Families(), AlertFrom(alert.Alert{Code: alert.CodeCulturalPOI}).Family))
	})
}

func TestPhase(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		s    State
		want Phase
	}{
		{"a trip whose import runs is computing", State{RouteImport: ComputationState{Status: ComputationRequested}}, PhaseComputing},
		{"a trip whose stages run is computing", State{StagesProgress: StagesProgress{ComputationState: ComputationState{Status: ComputationRequested}}}, PhaseComputing},
		{"a failed import is failed", State{RouteImport: ComputationState{Status: ComputationFailed}}, PhaseFailed},
		{"failed stages with none left is failed", State{StagesProgress: StagesProgress{ComputationState: ComputationState{Status: ComputationFailed}}}, PhaseFailed},
		{"failed stages over earlier ones is the status", State{StagesProgress: StagesProgress{ComputationState: ComputationState{Status: ComputationFailed}}, Stages: make([]Stage, MinStages)}, PhaseReady},
		{"a settled trip without stages is a draft", State{}, PhaseDraft},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, c.s.Phase())
		})
	}
}
