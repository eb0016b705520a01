package route

import "math"

// WGS-84 ellipsoid, used by Vincenty for every route, stage, split and cut
// distance (DOMAIN §2): the reference planner measures with it, and stage
// lengths must agree with what riders' devices report.
const (
	wgs84A = 6378137.0
	wgs84F = 1 / 298.257223563
	wgs84B = (1 - wgs84F) * wgs84A
)

// EarthRadiusM is the sphere Haversine uses (R = 6 371 000 m), for proximity,
// FIT distances and water gaps, where speed matters more than the last 0.5 %.
const EarthRadiusM = 6371000.0

// Haversine is the great-circle distance in metres on a sphere of
// EarthRadiusM.
func Haversine(a, b Point) float64 {
	lat1, lat2 := a.Lat*math.Pi/180, b.Lat*math.Pi/180
	dLat := lat2 - lat1
	dLon := (b.Lon - a.Lon) * math.Pi / 180
	s := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1)*math.Cos(lat2)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * EarthRadiusM * math.Asin(math.Min(1, math.Sqrt(s)))
}

// Vincenty is the ellipsoidal (WGS-84) distance in metres by Vincenty's
// inverse formula. For nearly antipodal points, where the iteration does not
// converge, it falls back to Haversine: no bikepacking segment is ever there,
// and a distance is better than an error inside a sum.
func Vincenty(a, b Point) float64 {
	if a.Lat == b.Lat && a.Lon == b.Lon {
		return 0
	}
	L := (b.Lon - a.Lon) * math.Pi / 180
	U1 := math.Atan((1 - wgs84F) * math.Tan(a.Lat*math.Pi/180))
	U2 := math.Atan((1 - wgs84F) * math.Tan(b.Lat*math.Pi/180))
	sinU1, cosU1 := math.Sincos(U1)
	sinU2, cosU2 := math.Sincos(U2)

	lambda := L
	var sinSigma, cosSigma, sigma, cos2Alpha, cos2SigmaM float64
	for i := 0; i < 200; i++ {
		sinLambda, cosLambda := math.Sincos(lambda)
		t1 := cosU2 * sinLambda
		t2 := cosU1*sinU2 - sinU1*cosU2*cosLambda
		sinSigma = math.Sqrt(t1*t1 + t2*t2)
		if sinSigma == 0 {
			return 0 // coincident points
		}
		cosSigma = sinU1*sinU2 + cosU1*cosU2*cosLambda
		sigma = math.Atan2(sinSigma, cosSigma)
		sinAlpha := cosU1 * cosU2 * sinLambda / sinSigma
		cos2Alpha = 1 - sinAlpha*sinAlpha
		if cos2Alpha != 0 {
			cos2SigmaM = cosSigma - 2*sinU1*sinU2/cos2Alpha
		} else {
			cos2SigmaM = 0 // equatorial line
		}
		C := wgs84F / 16 * cos2Alpha * (4 + wgs84F*(4-3*cos2Alpha))
		prev := lambda
		lambda = L + (1-C)*wgs84F*sinAlpha*(sigma+C*sinSigma*(cos2SigmaM+C*cosSigma*(-1+2*cos2SigmaM*cos2SigmaM)))
		if math.Abs(lambda-prev) < 1e-12 {
			uSq := cos2Alpha * (wgs84A*wgs84A - wgs84B*wgs84B) / (wgs84B * wgs84B)
			A := 1 + uSq/16384*(4096+uSq*(-768+uSq*(320-175*uSq)))
			B := uSq / 1024 * (256 + uSq*(-128+uSq*(74-47*uSq)))
			deltaSigma := B * sinSigma * (cos2SigmaM + B/4*(cosSigma*(-1+2*cos2SigmaM*cos2SigmaM)-
				B/6*cos2SigmaM*(-3+4*sinSigma*sinSigma)*(-3+4*cos2SigmaM*cos2SigmaM)))
			return wgs84B * A * (sigma - deltaSigma)
		}
	}
	return Haversine(a, b)
}

// Length is the Vincenty length of a polyline in metres.
func Length(pts []Point) float64 {
	var sum float64
	for i := 1; i < len(pts); i++ {
		sum += Vincenty(pts[i-1], pts[i])
	}
	return sum
}
