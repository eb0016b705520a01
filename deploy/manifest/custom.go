package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The types below mirror the parts of the KEDA and Prometheus Operator CRDs
// Roadbook uses. Decoding into them with unknown fields disallowed is the
// strict decoding client-go's scheme cannot do for custom resources: a field
// misspelt in the YAML (lagthreshold, podMetricEndpoints) fails here.

// scaledObject is KEDA's keda.sh/v1alpha1 ScaledObject.
type scaledObject struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       struct {
		ScaleTargetRef struct {
			APIVersion             string `json:"apiVersion,omitempty"`
			Kind                   string `json:"kind,omitempty"`
			Name                   string `json:"name"`
			EnvSourceContainerName string `json:"envSourceContainerName,omitempty"`
		} `json:"scaleTargetRef"`
		PollingInterval       *int32          `json:"pollingInterval,omitempty"`
		CooldownPeriod        *int32          `json:"cooldownPeriod,omitempty"`
		InitialCooldownPeriod *int32          `json:"initialCooldownPeriod,omitempty"`
		IdleReplicaCount      *int32          `json:"idleReplicaCount,omitempty"`
		MinReplicaCount       *int32          `json:"minReplicaCount,omitempty"`
		MaxReplicaCount       *int32          `json:"maxReplicaCount,omitempty"`
		Fallback              json.RawMessage `json:"fallback,omitempty"`
		Advanced              json.RawMessage `json:"advanced,omitempty"`
		Triggers              []struct {
			Type              string            `json:"type"`
			Name              string            `json:"name,omitempty"`
			MetricType        string            `json:"metricType,omitempty"`
			UseCachedMetrics  bool              `json:"useCachedMetrics,omitempty"`
			Metadata          map[string]string `json:"metadata"`
			AuthenticationRef json.RawMessage   `json:"authenticationRef,omitempty"`
		} `json:"triggers"`
	} `json:"spec"`
}

// prometheusRule is the Prometheus Operator's monitoring.coreos.com/v1
// PrometheusRule.
type prometheusRule struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       struct {
		Groups []struct {
			Name                    string            `json:"name"`
			Interval                string            `json:"interval,omitempty"`
			QueryOffset             string            `json:"query_offset,omitempty"`
			Limit                   *int              `json:"limit,omitempty"`
			PartialResponseStrategy string            `json:"partial_response_strategy,omitempty"`
			Labels                  map[string]string `json:"labels,omitempty"`
			Rules                   []promRule        `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

// promRule is one alerting or recording rule.
type promRule struct {
	Alert         string            `json:"alert,omitempty"`
	Record        string            `json:"record,omitempty"`
	Expr          string            `json:"expr"`
	For           string            `json:"for,omitempty"`
	KeepFiringFor string            `json:"keep_firing_for,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

// podMonitor is the Prometheus Operator's monitoring.coreos.com/v1 PodMonitor.
type podMonitor struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       struct {
		Selector            metav1.LabelSelector `json:"selector"`
		NamespaceSelector   json.RawMessage      `json:"namespaceSelector,omitempty"`
		JobLabel            string               `json:"jobLabel,omitempty"`
		PodTargetLabels     []string             `json:"podTargetLabels,omitempty"`
		SampleLimit         *int64               `json:"sampleLimit,omitempty"`
		PodMetricsEndpoints []struct {
			Port              string          `json:"port,omitempty"`
			PortNumber        int32           `json:"portNumber,omitempty"`
			Path              string          `json:"path,omitempty"`
			Scheme            string          `json:"scheme,omitempty"`
			Interval          string          `json:"interval,omitempty"`
			ScrapeTimeout     string          `json:"scrapeTimeout,omitempty"`
			HonorLabels       bool            `json:"honorLabels,omitempty"`
			Relabelings       json.RawMessage `json:"relabelings,omitempty"`
			MetricRelabelings json.RawMessage `json:"metricRelabelings,omitempty"`
		} `json:"podMetricsEndpoints"`
	} `json:"spec"`
}

// decodeCustom decodes an unstructured custom resource into v, rejecting
// fields v does not have.
func decodeCustom(o Object, v any) error {
	raw, err := json.Marshal(o.Custom.Object)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("strict decode: %w", err)
	}
	return nil
}
