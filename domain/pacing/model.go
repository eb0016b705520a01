package pacing

import (
	"math"

	lru "github.com/hashicorp/golang-lru/v2"
)

// The effort model's physical constants (docs/design/PACING.md "The effort
// model"). They describe a loaded touring or bikepacking bicycle, not a
// racing one: a rider of 75 kg on a 25 kg bike with luggage, upright, on the
// mixed surfaces such routes take. They are constants rather than settings
// because a rider cannot know them; what a rider knows — how fast they ride
// on the flat, how much a climb slows them, how long they ride in a day — is
// in Settings and calibrates the model.
const (
	// SystemMassKg is rider + bike + luggage.
	SystemMassKg = 100.0
	// RollingResistance is the rolling-resistance coefficient Crr of loaded
	// tyres on mixed (paved and good gravel) surfaces.
	RollingResistance = 0.012
	// DragAreaM2 is CdA, the drag area of an upright rider with bags.
	DragAreaM2 = 0.6
	// AirDensity is ρ in kg/m³ (sea level, 15 °C).
	AirDensity = 1.2
	// Gravity is g in m/s².
	Gravity = 9.81
	// ReferenceGrade is the grade on which ElevationPenalty calibrates the
	// rider's climbing: at 5 %, climbing ElevationPenalty metres costs as
	// much time as one flat kilometre on top of the road itself, so the
	// climbing speed is FlatSpeed × penalty / (penalty + 50). The rider's
	// power ramps linearly from the flat power at 0 % to the climbing power
	// at this grade and stays there above it.
	ReferenceGrade = 0.05
	// CoastGrade is the descent at which the rider stops pedalling: the
	// power fades linearly from the flat power at 0 % to nothing at −4 %,
	// below which gravity alone drives the bike.
	CoastGrade = -0.04
	// MaxDescentKmh caps the speed on descents: loaded bikes on unknown
	// surfaces brake. Without it a long pass descent would be free time.
	MaxDescentKmh = 40.0
	// MinSpeedKmh is the walking pace: on grades the rider cannot ride, the
	// bike is pushed.
	MinSpeedKmh = 4.0
	// EbikeAssistW is the motor power an e-bike adds on climbs (ramping
	// like the climbing power, full from ReferenceGrade), and
	// EbikeAssistMaxKmh the speed above which the motor stops helping (the
	// EU pedelec limit).
	EbikeAssistW      = 150.0
	EbikeAssistMaxKmh = 25.0
	// EbikeRangeFlatKm is an e-bike battery's range on the flat, and
	// EbikeClimbMetresPerKm the climbing that costs one km of it: a day
	// climbing D+ metres has EbikeRangeFlatKm − D+/EbikeClimbMetresPerKm
	// km of range (EbikeRangeKm). In e-bike mode the engine keeps every
	// day within it, like the km cap, and the e-bike alert checks it.
	EbikeRangeFlatKm      = 80.0
	EbikeClimbMetresPerKm = 25.0
	// GradeWindowM is the distance over which a grade is measured: the
	// elevation change across ±100 m around each step, so metre-scale
	// noise in the data does not read as 40 % ramps.
	GradeWindowM = 200.0
	// MaxGrade bounds a measured grade (±30 %); steeper readings are data
	// errors, and the bike is pushed at MinSpeedKmh either way.
	MaxGrade = 0.30
)

// gradeStep is the resolution of the speed table: 0.1 % of grade.
const gradeStep = 0.001

// Model is the effort model calibrated for one rider: the riding speed on
// every grade, tabulated once so that timing a 4,000 km route costs a table
// lookup per point. It is what the engine balances days on, what the rider
// time and the alerts read, and what the API shows; build it with
// NewModel.
type Model struct {
	// FlatPowerW and ClimbPowerW are the rider's power on the flat and from
	// ReferenceGrade up, solved from the settings (docs/design/PACING.md).
	FlatPowerW, ClimbPowerW float64
	ebike                   bool
	// speed[i] is the speed in m/s on grade −MaxGrade + i·gradeStep.
	speed []float64
	// bumpS is the time in seconds one metre of climbing (and the metre
	// of descent that follows it) costs when the line does not show it:
	// climbing and descending it at ReferenceGrade against riding that road
	// on the flat (HiddenClimbSeconds).
	bumpS float64
	// upS and downS are the seconds a metre climbed (descended) at
	// ±ReferenceGrade adds (saves) against riding that road on the flat.
	upS, downS float64
}

// modelKey is what calibrates a model.
type modelKey struct {
	speed, penalty float64
	ebike          bool
}

// models memoizes calibrated models: solving the speed table costs about a
// millisecond, and the API and the alerts time every stage of a trip with
// the same few riders. A model is immutable once built, so sharing it is
// safe; past maxModels riders the least recently used goes (golang-lru).
var models, _ = lru.New[modelKey, Model](maxModels)

const maxModels = 256

// NewModel calibrates the model on a rider's settings: the flat power from
// the flat speed, the climbing power from the flat speed and the elevation
// penalty (ReferenceGrade), the motor from the e-bike mode. Settings are
// assumed valid (Validate); the model never divides by zero on any
// positive speed and penalty.
func NewModel(s Settings) Model {
	key := modelKey{s.AverageSpeedKmh, s.ElevationPenalty, s.EbikeMode}
	m, ok := models.Get(key)
	if ok {
		return m
	}
	m = calibrate(s)
	models.Add(key, m)
	return m
}

// calibrate builds the model for NewModel.
func calibrate(s Settings) Model {
	vFlat := s.AverageSpeedKmh / 3.6
	vClimb := vFlat * s.ElevationPenalty / (s.ElevationPenalty + 1000*ReferenceGrade)
	m := Model{
		FlatPowerW:  resistance(0, vFlat) * vFlat,
		ClimbPowerW: resistance(ReferenceGrade, vClimb) * vClimb,
		ebike:       s.EbikeMode,
	}
	n := int(math.Round(2*MaxGrade/gradeStep)) + 1
	m.speed = make([]float64, n)
	for i := range m.speed {
		m.speed[i] = m.solve(-MaxGrade + float64(i)*gradeStep)
	}
	m.upS = (1/m.Speed(ReferenceGrade) - 1/m.Speed(0)) / ReferenceGrade
	m.downS = (1/m.Speed(-ReferenceGrade) - 1/m.Speed(0)) / ReferenceGrade
	m.bumpS = math.Max(0, m.upS+m.downS)
	return m
}

// HiddenClimbSeconds is what one metre of climbing costs (with the metre of
// descent that brings the rider back down) when the line being timed does
// not show it: a 20 m Douglas–Peucker line is decimated in plan view, so a
// straight road over a hill keeps only its two ends. Climbing and
// descending the metre at ReferenceGrade, against riding that road on the
// flat: (1/v(5 %) + 1/v(−5 %) − 2/v(0)) / 5 %, never negative.
func (m Model) HiddenClimbSeconds() float64 { return m.bumpS }

// resistance is the force in newtons opposing the bike at speed v (m/s) on
// grade g (rise over run): gravity, rolling and air, P = F·v.
func resistance(g, v float64) float64 {
	c := 1 / math.Sqrt(1+g*g) // cos θ
	return SystemMassKg*Gravity*(g*c+RollingResistance*c) + 0.5*AirDensity*DragAreaM2*v*v
}

// power is the rider's power on grade g: the climbing power from
// ReferenceGrade, the flat power at 0 %, nothing from CoastGrade down,
// linear in between.
func (m Model) power(g float64) float64 {
	switch {
	case g >= ReferenceGrade:
		return m.ClimbPowerW
	case g >= 0:
		return m.FlatPowerW + (m.ClimbPowerW-m.FlatPowerW)*g/ReferenceGrade
	case g > CoastGrade:
		return m.FlatPowerW * (1 - g/CoastGrade)
	}
	return 0
}

// assist is the e-bike motor's power on grade g (below EbikeAssistMaxKmh).
func (m Model) assist(g float64) float64 {
	if !m.ebike || g <= 0 {
		return 0
	}
	return EbikeAssistW * math.Min(1, g/ReferenceGrade)
}

// solve is the steady speed (m/s) on grade g: the v where power equals
// resistance × v, found by bisection (the balance is monotone in v), then
// capped on descents and floored at walking pace.
func (m Model) solve(g float64) float64 {
	v := steady(g, m.power(g)+m.assist(g))
	if a := m.assist(g); a > 0 && v > EbikeAssistMaxKmh/3.6 {
		// The motor stops at the limit: ride on the rider's own power,
		// but never slower than the limit the motor held.
		v = math.Max(EbikeAssistMaxKmh/3.6, steady(g, m.power(g)))
	}
	return math.Max(MinSpeedKmh/3.6, math.Min(MaxDescentKmh/3.6, v))
}

// steady solves p = resistance(g, v)·v for v ≥ 0 by bisection; on a descent
// steep enough to coast, the terminal speed (resistance 0) when p is 0.
func steady(g, p float64) float64 {
	lo, hi := 0.0, 40.0 // m/s; the cap is far below 40 m/s
	for range 60 {
		mid := (lo + hi) / 2
		if resistance(g, mid)*mid < p || resistance(g, mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// Speed is the modelled riding speed in m/s on grade g (rise over run),
// clamped to ±MaxGrade, interpolated in the table.
func (m Model) Speed(g float64) float64 {
	x := (math.Max(-MaxGrade, math.Min(MaxGrade, g)) + MaxGrade) / gradeStep
	i := int(x)
	if i >= len(m.speed)-1 {
		return m.speed[len(m.speed)-1]
	}
	f := x - float64(i)
	return m.speed[i] + f*(m.speed[i+1]-m.speed[i])
}

// FlatSpeed is the modelled speed in m/s on level ground: the settings'
// average speed, by construction.
func (m Model) FlatSpeed() float64 { return m.Speed(0) }

// EbikeRangeKm is the e-bike battery's range for a day climbing ascentM:
// EbikeRangeFlatKm on the flat, one km less per EbikeClimbMetresPerKm of
// climbing, never negative.
func EbikeRangeKm(ascentM float64) float64 {
	return math.Max(0, EbikeRangeFlatKm-ascentM/EbikeClimbMetresPerKm)
}
