package manifest

import (
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	networkingv1 "k8s.io/api/networking/v1"
)

// JobsStream is the JetStream work-queue stream the workers consume
// (ARCHITECTURE §5); the KEDA trigger must read its lag.
const JobsStream = "JOBS"

// WorkerConsumerEnv is the worker's env var naming its durable consumer on
// JobsStream; the KEDA trigger must name the same consumer.
const WorkerConsumerEnv = "ROADBOOK_WORKER_CONSUMER"

// KEDANamespace is where the KEDA operator runs; the NATS namespace must let
// it reach the monitoring port.
const KEDANamespace = "keda"

// natsMonitoringPort is the NATS HTTP monitoring port KEDA reads /jsz from.
const natsMonitoringPort = 8222

// natsJetStreamRequired and natsJetStreamOptional are the nats-jetstream
// scaler's metadata fields, exactly as KEDA documents them.
var (
	natsJetStreamRequired = []string{"natsServerMonitoringEndpoint", "account", "stream", "consumer", "lagThreshold"}
	natsJetStreamOptional = []string{"activationLagThreshold", "useHttps"}
)

// promDuration is Prometheus' duration syntax (1h30m, 5m, 0s).
var promDuration = regexp.MustCompile(`^([0-9]+(ms|s|m|h|d|w|y))+$`)

// checkCustom dispatches the custom resources by kind.
func checkCustom(idx *index, o Object) []error {
	switch o.Kind {
	case "ScaledObject":
		return checkScaledObject(idx, o)
	case "PrometheusRule":
		return checkPrometheusRule(o)
	case "PodMonitor":
		return checkPodMonitor(idx, o)
	}
	return []error{problemf(o, "no cross-check for custom kind %s: add one to manifest.checkCustom", o.Kind)}
}

// checkScaledObject checks the KEDA object against the worker it scales: a
// rendered Deployment no HPA also scales, at least one replica (the worker
// answers geocoding requests too), and a nats-jetstream trigger with exactly
// KEDA's fields, naming JOBS and the worker's own durable consumer, on a
// monitoring endpoint KEDA is allowed to reach.
func checkScaledObject(idx *index, o Object) []error {
	var so scaledObject
	if err := decodeCustom(o, &so); err != nil {
		return []error{problemf(o, "%v", err)}
	}
	var errs []error
	ref := so.Spec.ScaleTargetRef
	d := idx.deployments[nsName{o.Namespace, ref.Name}]
	if (ref.Kind != "" && ref.Kind != "Deployment") || d == nil {
		return append(errs, problemf(o, "scale target %s %s is not a rendered Deployment", ref.Kind, ref.Name))
	}
	for _, other := range idx.objects {
		if h, ok := other.Typed.(*autoscalingv2.HorizontalPodAutoscaler); ok && other.Namespace == o.Namespace && h.Spec.ScaleTargetRef.Name == ref.Name {
			errs = append(errs, problemf(o, "%s also scales Deployment %s: KEDA makes its own HPA", other, ref.Name))
		}
	}
	minR, maxR := so.Spec.MinReplicaCount, so.Spec.MaxReplicaCount
	if minR == nil || *minR < 1 {
		errs = append(errs, problemf(o, "minReplicaCount must be >= 1: the worker also answers geocoding requests"))
	}
	if maxR == nil || (minR != nil && *maxR < *minR) {
		errs = append(errs, problemf(o, "maxReplicaCount must be set and >= minReplicaCount"))
	}
	if len(so.Spec.Triggers) != 1 || so.Spec.Triggers[0].Type != "nats-jetstream" {
		return append(errs, problemf(o, "want exactly one trigger of type nats-jetstream"))
	}
	md := so.Spec.Triggers[0].Metadata
	for _, k := range natsJetStreamRequired {
		if md[k] == "" {
			errs = append(errs, problemf(o, "nats-jetstream metadata %s is missing", k))
		}
	}
	for k := range md {
		if !slices.Contains(natsJetStreamRequired, k) && !slices.Contains(natsJetStreamOptional, k) {
			errs = append(errs, problemf(o, "nats-jetstream metadata %s is not a field of the scaler", k))
		}
	}
	if md["stream"] != JobsStream {
		errs = append(errs, problemf(o, "stream %q, want %q", md["stream"], JobsStream))
	}
	consumer, ok := "", false
	for _, c := range d.Spec.Template.Spec.Containers {
		if v, found := idx.envValue(o.Namespace, c, WorkerConsumerEnv); found {
			consumer, ok = v, true
		}
	}
	if !ok || md["consumer"] != consumer {
		errs = append(errs, problemf(o, "consumer %q is not the worker's %s %q", md["consumer"], WorkerConsumerEnv, consumer))
	}
	if n, err := strconv.Atoi(md["lagThreshold"]); err != nil || n < 1 {
		errs = append(errs, problemf(o, "lagThreshold %q must be a positive integer", md["lagThreshold"]))
	}
	if v, set := md["activationLagThreshold"]; set {
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			errs = append(errs, problemf(o, "activationLagThreshold %q must be a non-negative integer", v))
		}
	}
	if v, set := md["useHttps"]; set && v != "true" && v != "false" {
		errs = append(errs, problemf(o, "useHttps %q must be true or false", v))
	}
	return append(errs, checkMonitoringReachable(idx, o, md["natsServerMonitoringEndpoint"])...)
}

// checkMonitoringReachable requires the endpoint to be a cluster Service on
// the NATS monitoring port, and a NetworkPolicy in its namespace that lets
// the KEDA namespace in on that port.
func checkMonitoringReachable(idx *index, o Object, endpoint string) []error {
	host, port, err := net.SplitHostPort(endpoint)
	if err != nil || port != strconv.Itoa(natsMonitoringPort) {
		return []error{problemf(o, "natsServerMonitoringEndpoint %q must be host:%d", endpoint, natsMonitoringPort)}
	}
	parts := strings.Split(host, ".")
	if len(parts) < 2 {
		return []error{problemf(o, "natsServerMonitoringEndpoint %q must name service.namespace", endpoint)}
	}
	ns := parts[1]
	for _, other := range idx.objects {
		np, ok := other.Typed.(*networkingv1.NetworkPolicy)
		if !ok || other.Namespace != ns {
			continue
		}
		for _, r := range np.Spec.Ingress {
			fromKEDA := slices.ContainsFunc(r.From, func(p networkingv1.NetworkPolicyPeer) bool {
				return p.NamespaceSelector != nil && idx.namespaceMatches(p.NamespaceSelector, KEDANamespace)
			})
			onPort := slices.ContainsFunc(r.Ports, func(p networkingv1.NetworkPolicyPort) bool {
				return p.Port != nil && p.Port.IntValue() == natsMonitoringPort
			})
			if fromKEDA && onPort {
				return nil
			}
		}
	}
	return []error{problemf(o, "no NetworkPolicy in namespace %s lets namespace %s reach port %d", ns, KEDANamespace, natsMonitoringPort)}
}

// checkPrometheusRule checks every rule's shape: alert or record, an
// expression, a valid duration, and a severity on alerts.
func checkPrometheusRule(o Object) []error {
	var pr prometheusRule
	if err := decodeCustom(o, &pr); err != nil {
		return []error{problemf(o, "%v", err)}
	}
	var errs []error
	if len(pr.Spec.Groups) == 0 {
		errs = append(errs, problemf(o, "has no rule groups"))
	}
	for _, g := range pr.Spec.Groups {
		for i, r := range g.Rules {
			if (r.Alert == "") == (r.Record == "") {
				errs = append(errs, problemf(o, "group %s rule %d: set exactly one of alert and record", g.Name, i))
			}
			if strings.TrimSpace(r.Expr) == "" {
				errs = append(errs, problemf(o, "group %s rule %d: empty expr", g.Name, i))
			}
			if r.For != "" && !promDuration.MatchString(r.For) {
				errs = append(errs, problemf(o, "group %s rule %d: for %q is not a duration", g.Name, i, r.For))
			}
			if r.Alert != "" && r.Labels["severity"] == "" {
				errs = append(errs, problemf(o, "alert %s has no severity label", r.Alert))
			}
			if strings.Count(r.Expr, "(") != strings.Count(r.Expr, ")") {
				errs = append(errs, problemf(o, "group %s rule %d: unbalanced parentheses in %q", g.Name, i, r.Expr))
			}
		}
	}
	return errs
}

// checkPodMonitor requires the monitor to select pods that all declare the
// port it scrapes.
func checkPodMonitor(idx *index, o Object) []error {
	var pm podMonitor
	if err := decodeCustom(o, &pm); err != nil {
		return []error{problemf(o, "%v", err)}
	}
	if errs := checkSelects(idx, o, &pm.Spec.Selector); errs != nil {
		return errs
	}
	pods, _ := idx.selectPods(o.Namespace, &pm.Spec.Selector)
	var errs []error
	if len(pm.Spec.PodMetricsEndpoints) == 0 {
		errs = append(errs, problemf(o, "has no podMetricsEndpoints"))
	}
	for _, ep := range pm.Spec.PodMetricsEndpoints {
		for _, p := range pods {
			if !p.containerPort(ep.Port, ep.PortNumber) {
				errs = append(errs, problemf(o, "port %q/%d is not a container port of %s", ep.Port, ep.PortNumber, p.owner))
			}
		}
	}
	return errs
}
