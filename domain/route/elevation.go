package route

// MinClimbRunM is the smallest total rise (exclusive) that counts toward D+
// (DOMAIN §2): GPS and DEM noise produce endless sub-metre wiggles that would
// otherwise add hundreds of phantom metres on a long route.
const MinClimbRunM = 3.0

// Elevation returns D+ and D− in metres: D+ sums contiguous rising runs whose
// total rise is > MinClimbRunM, any non-rising step ending a run; D− mirrors
// it with falling runs. Points without elevation count as 0 m, as DOMAIN §2
// says; callers report "elevation unknown" when no point has one.
func Elevation(pts []Point) (gainM, lossM float64) {
	var up, down float64
	for i := 1; i < len(pts); i++ {
		d := pts[i].Ele - pts[i-1].Ele
		if d > 0 {
			up += d
		} else {
			if up > MinClimbRunM {
				gainM += up
			}
			up = 0
		}
		if d < 0 {
			down -= d
		} else {
			if down > MinClimbRunM {
				lossM += down
			}
			down = 0
		}
	}
	if up > MinClimbRunM {
		gainM += up
	}
	if down > MinClimbRunM {
		lossM += down
	}
	return gainM, lossM
}
