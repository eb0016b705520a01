package manifest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// probePort returns the port a probe connects to, when it connects to one
// (exec probes do not).
func probePort(p *corev1.Probe) (intstr.IntOrString, bool) {
	switch {
	case p.HTTPGet != nil:
		return p.HTTPGet.Port, true
	case p.TCPSocket != nil:
		return p.TCPSocket.Port, true
	case p.GRPC != nil:
		return intstr.FromInt32(p.GRPC.Port), true
	}
	return intstr.IntOrString{}, false
}
