package alert

import (
	"math"
	"time"
)

// Zenith angles of the events Roadbook needs: sunrise/sunset use the NOAA
// standard 90.833° (0.833° for refraction and the solar disc's radius); civil
// twilight begins and ends when the sun's centre is 6° below the horizon.
const (
	zenithSunrise = 90.833
	zenithCivil   = 96.0
)

// Crossing says whether the sun crosses a given altitude on a day. Near the
// poles it may not, and a rule must then say what that means rather than read
// a zero time.
type Crossing int

// The three possible days at a latitude.
const (
	// Crosses: the sun rises above and sets below the altitude; Rise and Set
	// are valid.
	Crosses Crossing = iota
	// AlwaysAbove: the sun stays above the altitude all day (midnight sun for
	// sunset, white nights for civil twilight).
	AlwaysAbove
	// AlwaysBelow: the sun never reaches the altitude (polar night).
	AlwaysBelow
)

// Passage is the pair of crossings of one solar altitude on one day.
type Passage struct {
	// Kind says whether Rise and Set exist.
	Kind Crossing
	// Rise and Set are UTC instants, zero unless Kind == Crosses.
	Rise, Set time.Time
}

// SolarDay holds the NOAA solar events of one civil date at one point.
type SolarDay struct {
	// Noon is the UTC instant of solar noon.
	Noon time.Time
	// Sun is sunrise and sunset (apparent upper limb on the horizon).
	Sun Passage
	// Civil is civil dawn and civil dusk (sun 6° below the horizon); Civil.Set
	// is the "civil-twilight end" of the sunset rule.
	Civil Passage
}

// SolarEvents computes sunrise, sunset and civil twilight for the civil date
// year-month-day at lat/lon (degrees, east positive) with the NOAA solar
// calculator equations (Meeus-based, the ones of NOAA's spreadsheet), refined
// by re-evaluating the sun's position at each event. The day is the one whose
// solar noon falls on that date in local mean time, so the events belong to
// the date a rider means. Accuracy is about a minute below ±72° latitude;
// closer to the poles events near the horizon grazing point drift by more.
func SolarEvents(year int, month time.Month, day int, lat, lon float64) SolarDay {
	midnight := time.Date(year, month, day, 0, 0, 0, 0, time.UTC)
	jd0 := float64(midnight.Unix())/86400 + 2440587.5

	// Solar noon, iterated at its own time.
	noonMin := 720 - 4*lon
	for range 3 {
		_, eq := sunAt(jd0 + noonMin/1440)
		noonMin = 720 - 4*lon - eq
	}
	at := func(minutes float64) time.Time {
		return midnight.Add(time.Duration(math.Round(minutes*60)) * time.Second)
	}
	passage := func(zenith float64) Passage {
		decl, _ := sunAt(jd0 + noonMin/1440)
		cosHA := hourAngleCos(zenith, lat, decl)
		switch {
		case cosHA > 1:
			return Passage{Kind: AlwaysBelow}
		case cosHA < -1:
			return Passage{Kind: AlwaysAbove}
		}
		rise := event(jd0, noonMin, lat, lon, zenith, -1)
		set := event(jd0, noonMin, lat, lon, zenith, +1)
		return Passage{Kind: Crosses, Rise: at(rise), Set: at(set)}
	}
	return SolarDay{Noon: at(noonMin), Sun: passage(zenithSunrise), Civil: passage(zenithCivil)}
}

// event iterates one rising (sign −1) or setting (+1) time in minutes after
// 0h UTC of the date, re-evaluating declination and equation of time at the
// event itself; when a refinement falls off the grazing limit it keeps the
// last valid estimate.
func event(jd0, noonMin, lat, lon, zenith, sign float64) float64 {
	decl, _ := sunAt(jd0 + noonMin/1440)
	minutes := noonMin + sign*4*deg(math.Acos(hourAngleCos(zenith, lat, decl)))
	for range 4 {
		decl, eq := sunAt(jd0 + minutes/1440)
		c := hourAngleCos(zenith, lat, decl)
		if c > 1 || c < -1 {
			break
		}
		minutes = 720 - 4*lon - eq + sign*4*deg(math.Acos(c))
	}
	return minutes
}

// hourAngleCos is cos of the hour angle at which the sun's centre reaches the
// zenith angle; outside [-1, 1] it never does that day.
func hourAngleCos(zenith, lat, decl float64) float64 {
	return math.Cos(rad(zenith))/(math.Cos(rad(lat))*math.Cos(rad(decl))) - math.Tan(rad(lat))*math.Tan(rad(decl))
}

// sunAt returns the sun's apparent declination (degrees) and the equation of
// time (minutes) at Julian day jd, per the NOAA spreadsheet.
func sunAt(jd float64) (declDeg, eqTimeMin float64) {
	t := (jd - 2451545) / 36525
	l0 := math.Mod(280.46646+t*(36000.76983+t*0.0003032), 360)
	m := 357.52911 + t*(35999.05029-0.0001537*t)
	e := 0.016708634 - t*(0.000042037+0.0000001267*t)
	c := math.Sin(rad(m))*(1.914602-t*(0.004817+0.000014*t)) +
		math.Sin(rad(2*m))*(0.019993-0.000101*t) +
		math.Sin(rad(3*m))*0.000289
	trueLong := l0 + c
	omega := 125.04 - 1934.136*t
	appLong := trueLong - 0.00569 - 0.00478*math.Sin(rad(omega))
	meanObliq := 23 + (26+(21.448-t*(46.815+t*(0.00059-t*0.001813)))/60)/60
	obliq := meanObliq + 0.00256*math.Cos(rad(omega))
	declDeg = deg(math.Asin(math.Sin(rad(obliq)) * math.Sin(rad(appLong))))
	y := math.Pow(math.Tan(rad(obliq/2)), 2)
	eqTimeMin = 4 * deg(y*math.Sin(2*rad(l0))-
		2*e*math.Sin(rad(m))+
		4*e*y*math.Sin(rad(m))*math.Cos(2*rad(l0))-
		0.5*y*y*math.Sin(4*rad(l0))-
		1.25*e*e*math.Sin(2*rad(m)))
	return declDeg, eqTimeMin
}

func rad(d float64) float64 { return d * math.Pi / 180 }
func deg(r float64) float64 { return r * 180 / math.Pi }
