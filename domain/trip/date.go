package trip

import "time"

// dateLayout is ISO 8601's calendar date, the only form dates take in events
// and commands.
const dateLayout = "2006-01-02"

// Date is a calendar day without a time zone: trip dates are the rider's
// days, and the lock rule compares them with today in UTC (DOMAIN §1). The
// zero Date means "not set".
type Date struct {
	t time.Time // midnight UTC; zero when unset
}

// ParseDate reads YYYY-MM-DD; the empty string is the unset Date. field
// names the argument in the error.
func ParseDate(field, s string) (Date, error) {
	if s == "" {
		return Date{}, nil
	}
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return Date{}, invalid(field, "must be a calendar date YYYY-MM-DD")
	}
	return Date{t: t}, nil
}

// MustDate parses a date known to be valid (tests, constants); it panics
// otherwise.
func MustDate(s string) Date {
	d, err := ParseDate("date", s)
	if err != nil {
		panic(err)
	}
	return d
}

// DateOf is the UTC calendar day of an instant: "today" for the lock rule.
func DateOf(t time.Time) Date {
	u := t.UTC()
	return Date{t: time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)}
}

// IsZero reports whether the date is unset.
func (d Date) IsZero() bool { return d.t.IsZero() }

// String is YYYY-MM-DD, or "" when unset (the events' spelling of "none").
func (d Date) String() string {
	if d.t.IsZero() {
		return ""
	}
	return d.t.Format(dateLayout)
}

// AddDays is the date n days later (earlier when negative); unset stays
// unset.
func (d Date) AddDays(n int) Date {
	if d.t.IsZero() {
		return d
	}
	return Date{t: d.t.AddDate(0, 0, n)}
}

// Before reports whether d is strictly earlier than o.
func (d Date) Before(o Date) bool { return d.t.Before(o.t) }

// DaysUntil is the number of days from d to o (o − d).
func (d Date) DaysUntil(o Date) int { return int(o.t.Sub(d.t).Hours() / 24) }

// MarshalText is String: a Date written as text (JSON, a stored snapshot
// of a trip's state) is its YYYY-MM-DD, or "" when unset.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads what MarshalText wrote.
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate("date", string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
