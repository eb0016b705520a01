package alert_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/alert"
)

func TestSeasonalClosure(t *testing.T) {
	t.Parallel()
	summer := alert.ClosedMonths(map[string]string{"opening_hours": "May-Sep: Mo-Su 08:00-22:00"}) // closed Oct–Apr
	seasonal := alert.ClosedMonths(map[string]string{"seasonal": "yes"})                           // Nov–Mar
	open := alert.ClosedMonths(map[string]string{"opening_hours": "24/7"})
	require.Equal(t, uint16(0b111000001111), summer, "Jan–Apr and Oct–Dec")
	require.Equal(t, uint16(0b110000000111), seasonal)
	require.Zero(t, open)

	oct := time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC)
	sep := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	camp := alert.Lodging{Name: "Camping Elv", ClosedMonths: summer}
	hotel := alert.Lodging{Name: "Hotel Nord", ClosedMonths: open}

	t.Run("a chosen camp site closed after September warns on 2 October", func(t *testing.T) {
		t.Parallel()
		a, ok := alert.SeasonalClosure(3, oct, &camp, nil)
		require.True(t, ok)
		require.Equal(t, alert.SeverityWarning, a.Severity)
		require.Equal(t, alert.CodeAccommodationSeasonalClosure, a.Code)
		require.Contains(t, a.Message, `"Camping Elv", may be closed in October`)
	})
	t.Run("the same camp site on 30 September is open", func(t *testing.T) {
		t.Parallel()
		_, ok := alert.SeasonalClosure(3, sep, &camp, nil)
		require.False(t, ok)
	})
	t.Run("with nothing chosen, every candidate closed warns and some closed nudges", func(t *testing.T) {
		t.Parallel()
		a, ok := alert.SeasonalClosure(0, oct, nil, []alert.Lodging{camp, {Name: "Hut", ClosedMonths: seasonal | summer}})
		require.True(t, ok)
		require.Equal(t, alert.SeverityWarning, a.Severity)
		a, ok = alert.SeasonalClosure(0, oct, nil, []alert.Lodging{camp, hotel})
		require.True(t, ok)
		require.Equal(t, alert.SeverityNudge, a.Severity)
		require.Contains(t, a.Message, `1 of 2 places`)
		_, ok = alert.SeasonalClosure(0, sep, nil, []alert.Lodging{camp, hotel})
		require.False(t, ok)
	})
	t.Run("an open chosen place or an undated stage raises nothing", func(t *testing.T) {
		t.Parallel()
		_, ok := alert.SeasonalClosure(0, oct, &hotel, []alert.Lodging{camp})
		require.False(t, ok, "the chosen place is what counts")
		_, ok = alert.SeasonalClosure(0, time.Time{}, &camp, nil)
		require.False(t, ok)
	})
}
