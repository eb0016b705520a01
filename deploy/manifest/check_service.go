package manifest

import (
	"net/url"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// checkSelects requires a label selector that selects at least one pod.
func checkSelects(idx *index, o Object, sel *metav1.LabelSelector) []error {
	pods, err := idx.selectPods(o.Namespace, sel)
	if err != nil {
		return []error{problemf(o, "selector: %v", err)}
	}
	if len(pods) == 0 {
		return []error{problemf(o, "selector %s selects no pod", metav1.FormatLabelSelector(sel))}
	}
	return nil
}

// checkService requires a selector that selects pods and target ports that
// every selected pod declares.
func checkService(idx *index, o Object, s *corev1.Service) []error {
	if len(s.Spec.Selector) == 0 {
		return []error{problemf(o, "has no selector")}
	}
	sel := &metav1.LabelSelector{MatchLabels: s.Spec.Selector}
	if errs := checkSelects(idx, o, sel); errs != nil {
		return errs
	}
	pods, _ := idx.selectPods(o.Namespace, sel)
	var errs []error
	for _, sp := range s.Spec.Ports {
		target := sp.TargetPort
		if target.StrVal == "" && target.IntVal == 0 {
			target.IntVal = sp.Port
		}
		for _, p := range pods {
			if !p.containerPort(target.StrVal, target.IntVal) {
				errs = append(errs, problemf(o, "port %s: target port %s is not a container port of %s", sp.Name, target.String(), p.owner))
			}
		}
	}
	return errs
}

// checkHPA requires the scale target to be a rendered Deployment with
// bounds that make sense.
func checkHPA(idx *index, o Object, h *autoscalingv2.HorizontalPodAutoscaler) []error {
	var errs []error
	ref := h.Spec.ScaleTargetRef
	if ref.Kind != "Deployment" || idx.deployments[nsName{o.Namespace, ref.Name}] == nil {
		errs = append(errs, problemf(o, "scale target %s %s is not a rendered Deployment", ref.Kind, ref.Name))
	}
	if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 1 || *h.Spec.MinReplicas > h.Spec.MaxReplicas {
		errs = append(errs, problemf(o, "replica bounds must satisfy 1 <= minReplicas <= maxReplicas (%d)", h.Spec.MaxReplicas))
	}
	if len(h.Spec.Metrics) == 0 {
		errs = append(errs, problemf(o, "has no metrics"))
	}
	return errs
}

// checkIngress requires every backend to name a rendered Service and one of
// its ports, every host to be covered by TLS, and the hosts to agree with the
// public base URL the services are configured with.
func checkIngress(idx *index, o Object, in *networkingv1.Ingress) []error {
	var errs []error
	tlsHosts := map[string]bool{}
	for _, t := range in.Spec.TLS {
		if t.SecretName == "" {
			errs = append(errs, problemf(o, "TLS entry for %v has no secretName", t.Hosts))
		}
		for _, h := range t.Hosts {
			tlsHosts[h] = true
		}
	}
	for _, r := range in.Spec.Rules {
		if r.Host == "" || !tlsHosts[r.Host] {
			errs = append(errs, problemf(o, "host %q is not covered by TLS", r.Host))
		}
		if base, ok := idx.configMaps[nsName{o.Namespace, "roadbook-config"}]["ROADBOOK_PUBLIC_BASE_URL"]; ok {
			u, err := url.Parse(base)
			if err != nil || u.Scheme != "https" || u.Host != r.Host {
				errs = append(errs, problemf(o, "host %q does not match ROADBOOK_PUBLIC_BASE_URL %q", r.Host, base))
			}
		}
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			errs = append(errs, checkBackend(idx, o, p.Path, p.Backend)...)
		}
	}
	return errs
}

// checkBackend requires an Ingress backend to be a rendered Service port.
func checkBackend(idx *index, o Object, path string, b networkingv1.IngressBackend) []error {
	if b.Service == nil {
		return []error{problemf(o, "path %s has no Service backend", path)}
	}
	svc := idx.services[nsName{o.Namespace, b.Service.Name}]
	if svc == nil {
		return []error{problemf(o, "path %s: Service %s does not exist", path, b.Service.Name)}
	}
	for _, sp := range svc.Spec.Ports {
		if (b.Service.Port.Name != "" && sp.Name == b.Service.Port.Name) || (b.Service.Port.Name == "" && sp.Port == b.Service.Port.Number) {
			return nil
		}
	}
	return []error{problemf(o, "path %s: Service %s has no port %q/%d", path, b.Service.Name, b.Service.Port.Name, b.Service.Port.Number)}
}
