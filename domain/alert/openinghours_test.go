package alert_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/domain/alert"
)

func TestOpenAt(t *testing.T) {
	t.Parallel()
	// Monday 18 May 2026, Tuesday 19, Saturday 23, Sunday 24; 17 May is a
	// Sunday and Norway's Constitution Day.
	mon := time.Date(2026, 5, 18, 0, 0, 0, 0, time.UTC)
	sat := time.Date(2026, 5, 23, 0, 0, 0, 0, time.UTC)
	sun := time.Date(2026, 5, 24, 0, 0, 0, 0, time.UTC)
	jan := time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC) // a Monday
	hm := func(h, m int) int { return h*60 + m }
	for _, tc := range []struct {
		name    string
		hours   string
		day     time.Time
		minute  int
		holiday bool
		want    alert.OpenState
	}{
		{"inside a weekday span is open", "Mo-Fr 08:00-20:00", mon, hm(8, 0), false, alert.Open},
		{"at the span's end it is closed", "Mo-Fr 08:00-20:00", mon, hm(20, 0), false, alert.Closed},
		{"a minute before opening is closed", "Mo-Fr 08:00-20:00", mon, hm(7, 59), false, alert.Closed},
		{"a day no rule selects is closed", "Mo-Fr 08:00-20:00", sat, hm(12, 0), false, alert.Closed},
		{"a later rule for Saturday applies", "Mo-Fr 08:00-20:00; Sa 09:00-16:00", sat, hm(15, 59), false, alert.Open},
		{"and closes at its own time", "Mo-Fr 08:00-20:00; Sa 09:00-16:00", sat, hm(16, 30), false, alert.Closed},
		{"a comma joins an additional rule", "Mo-Fr 08:00-12:00, Sa 09:00-12:00", sat, hm(10, 0), false, alert.Open},
		{"a lunch break is closed", "Mo-Fr 08:00-12:00,14:00-18:00", mon, hm(13, 0), false, alert.Closed},
		{"after the break it is open", "Mo-Fr 08:00-12:00,14:00-18:00", mon, hm(14, 0), false, alert.Open},
		{"24/7 is always open", "24/7", sun, hm(3, 0), false, alert.Open},
		{"a later rule replaces an earlier one on its days", "Mo-Su 07:00-23:00; Su off", sun, hm(12, 0), false, alert.Closed},
		{"PH off closes on a holiday", "Mo-Sa 08:00-20:00; PH off", mon, hm(12, 0), true, alert.Closed},
		{"PH off leaves an ordinary day open", "Mo-Sa 08:00-20:00; PH off", mon, hm(12, 0), false, alert.Open},
		{"a holiday no PH rule mentions follows its weekday", "Mo-Sa 08:00-20:00", mon, hm(12, 0), true, alert.Open},
		{"PH hours apply on a holiday", "Mo-Sa 08:00-20:00; PH 10:00-14:00", mon, hm(15, 0), true, alert.Closed},
		{"a weekday without times is open all day", "Mo-Fr", mon, hm(23, 30), false, alert.Open},
		{"a wrapping weekday range", "Su-Tu 10:00-18:00", mon, hm(11, 0), false, alert.Open},
		{"a weekday list", "Mo,We,Fr 10:00-18:00", time.Date(2026, 5, 19, 0, 0, 0, 0, time.UTC), hm(11, 0), false, alert.Closed},
		{"the early hours of a span past midnight are open", "Fr-Sa 18:00-02:00", sun, hm(1, 30), false, alert.Open},
		{"and close at its end", "Fr-Sa 18:00-02:00", sun, hm(2, 0), false, alert.Closed},
		{"extended hours past 24:00", "Sa 22:00-26:00", sun, hm(1, 0), false, alert.Open},
		{"an open end is open until midnight", "Mo-Fr 17:00+", mon, hm(23, 0), false, alert.Open},
		{"a season outside its months is closed", "May-Sep: Mo-Su 09:00-18:00", jan, hm(12, 0), false, alert.Closed},
		{"a season inside its months is open", "May-Sep Mo-Su 09:00-18:00", mon, hm(12, 0), false, alert.Open},
		{"a month range off", "Mo-Su 09:00-18:00; Nov-Mar off", jan, hm(12, 0), false, alert.Closed},
		{"off with times cuts them out", "Mo-Fr 08:00-18:00; We 12:00-13:00 off", time.Date(2026, 5, 20, 0, 0, 0, 0, time.UTC), hm(12, 30), false, alert.Closed},
		{"unknown says unknown", "Mo-Fr unknown", mon, hm(12, 0), false, alert.OpenUnknown},
		{"no hours is unknown", "", mon, hm(12, 0), false, alert.OpenUnknown},
		{"a comment is unknown", `Mo-Fr 08:00-18:00 "by appointment"`, mon, hm(12, 0), false, alert.OpenUnknown},
		{"sunrise is unknown", "sunrise-sunset", mon, hm(12, 0), false, alert.OpenUnknown},
		{"a fallback rule is unknown", "Mo-Fr 08:00-18:00 || \"call\"", mon, hm(12, 0), false, alert.OpenUnknown},
		{"an nth weekday is unknown", "Su[1] 10:00-12:00", sun, hm(11, 0), false, alert.OpenUnknown},
		{"a date is unknown", "Dec 25 off", mon, hm(11, 0), false, alert.OpenUnknown},
		{"an impossible time is unknown", "Mo 25:00-26:00", mon, hm(11, 0), false, alert.OpenUnknown},
		{"a minute outside the day is unknown", "24/7", mon, 1440, false, alert.OpenUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, alert.OpenAt(tc.hours, tc.day, tc.minute, tc.holiday), "%q", tc.hours)
		})
	}
}

func TestSelectResupply(t *testing.T) {
	t.Parallel()
	w := func(id string, atKm, off float64) alert.ResupplyPoint {
		return alert.ResupplyPoint{Kind: alert.ResupplyWater, ID: id, AtM: atKm * 1000, OffRouteM: off}
	}
	t.Run("the nearest few of a kind per stretch are kept in route order, the rest counted", func(t *testing.T) {
		t.Parallel()
		kept, omitted := alert.SelectResupply([]alert.ResupplyPoint{
			w("a", 1, 400), w("b", 2, 10), w("c", 3, 50), w("d", 9.9, 200),
			w("e", 12, 300),
			{Kind: alert.ResupplyShop, ID: "s", AtM: 5000, OffRouteM: 450},
			w("b", 2, 10), // a duplicate of b
		})
		var ids []string
		for _, p := range kept {
			ids = append(ids, p.ID)
		}
		require.Equal(t, []string{"b", "c", "s", "e"}, ids)
		require.Equal(t, []alert.ResupplyOmitted{{Segment: 0, Kind: alert.ResupplyWater, Count: 2}}, omitted)
	})
	t.Run("an unknown kind or a position off the stage is dropped", func(t *testing.T) {
		t.Parallel()
		kept, omitted := alert.SelectResupply([]alert.ResupplyPoint{{Kind: "beer", AtM: 10}, {Kind: alert.ResupplyFood, AtM: -1}})
		require.Empty(t, kept)
		require.Empty(t, omitted)
	})
}
