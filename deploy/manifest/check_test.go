package manifest_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/roadbook/roadbook/deploy/manifest"
)

// clone deep-copies rendered objects so one test's mutation stays its own.
func clone(objs []manifest.Object) []manifest.Object {
	out := make([]manifest.Object, len(objs))
	for i, o := range objs {
		out[i] = o
		if o.Typed != nil {
			out[i].Typed = o.Typed.DeepCopyObject()
		}
		if o.Custom != nil {
			out[i].Custom = o.Custom.DeepCopy()
		}
	}
	return out
}

// deployment returns the named Deployment of objs for mutation.
func deployment(t *testing.T, objs []manifest.Object, name string) *appsv1.Deployment {
	t.Helper()
	return find(t, objs, "Deployment", name).Typed.(*appsv1.Deployment)
}

// trigger returns the ScaledObject's first trigger metadata for mutation.
func trigger(t *testing.T, objs []manifest.Object) map[string]any {
	t.Helper()
	triggers, _, _ := unstructuredSlice(find(t, objs, "ScaledObject", "roadbook-worker").Custom.Object, "spec", "triggers")
	return triggers[0].(map[string]any)["metadata"].(map[string]any)
}

func TestCheckCatchesBrokenManifests(t *testing.T) {
	t.Parallel()
	prod := render(t, "overlays/prod")
	secret := exampleSecret(t)
	require.NoError(t, manifest.Check(prod, secret...), "the unbroken overlay passes")

	cases := []struct {
		name    string
		breakIt func(t *testing.T, objs []manifest.Object) []manifest.Object
		want    string
	}{
		{"a probe on a port the container does not declare is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			deployment(t, objs, "roadbook-api").Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Port = intstr.FromString("metrics")
			return objs
		}, "readinessProbe port metrics is not a container port"},
		{"a missing liveness probe is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			deployment(t, objs, "roadbook-mcp").Spec.Template.Spec.Containers[0].LivenessProbe = nil
			return objs
		}, "container mcp has no livenessProbe"},
		{"a selector that misses the pod template is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			deployment(t, objs, "roadbook-worker").Spec.Selector.MatchLabels["app.kubernetes.io/component"] = "wroker"
			return objs
		}, "does not match pod template labels"},
		{"a writable root filesystem is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			f := false
			deployment(t, objs, "roadbook-api").Spec.Template.Spec.Containers[0].SecurityContext.ReadOnlyRootFilesystem = &f
			return objs
		}, "readOnlyRootFilesystem: true"},
		{"a container without limits is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			deployment(t, objs, "roadbook-worker").Spec.Template.Spec.Containers[0].Resources.Limits = nil
			return objs
		}, "container worker has no memory limit"},
		{"a grace period shorter than the drain is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			g := int64(30)
			deployment(t, objs, "roadbook-worker").Spec.Template.Spec.TerminationGracePeriodSeconds = &g
			return objs
		}, "needs 4m30s to drain"},
		{"a Secret key the example Secret lacks is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			env := deployment(t, objs, "roadbook-mcp").Spec.Template.Spec.Containers[0].Env
			for i := range env {
				if env[i].ValueFrom != nil && env[i].ValueFrom.SecretKeyRef != nil {
					env[i].ValueFrom.SecretKeyRef.Key = "ROADBOOK_MCP_CURSOR_SECRET"
					break
				}
			}
			return objs
		}, "Secret roadbook-secrets has no key ROADBOOK_MCP_CURSOR_SECRET"},
		{"a ConfigMap key that does not exist is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			delete(find(t, objs, "ConfigMap", "roadbook-config").Typed.(*corev1.ConfigMap).Data, "ROADBOOK_JWKS_URL")
			return objs
		}, "ConfigMap roadbook-config has no key ROADBOOK_JWKS_URL"},
		{"a Service whose selector selects no pod is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			find(t, objs, "Service", "roadbook-mcp").Typed.(*corev1.Service).Spec.Selector["app.kubernetes.io/component"] = "mcp-server"
			return objs
		}, "Service roadbook/roadbook-mcp: selector"},
		{"an Ingress backend on a port the Service lacks is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			in := find(t, objs, "Ingress", "roadbook-api").Typed.(*networkingv1.Ingress)
			in.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port = networkingv1.ServiceBackendPort{Name: "grpc"}
			return objs
		}, `Service roadbook-api has no port "grpc"`},
		{"an Ingress host that is not the public base URL is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			in := find(t, objs, "Ingress", "roadbook-mcp").Typed.(*networkingv1.Ingress)
			in.Spec.Rules[0].Host = "other.example.org"
			in.Spec.TLS[0].Hosts = []string{"other.example.org"}
			return objs
		}, "does not match ROADBOOK_PUBLIC_BASE_URL"},
		{"a PodDisruptionBudget that selects no pod is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			pdb := find(t, objs, "PodDisruptionBudget", "roadbook-api").Typed.(*policyv1.PodDisruptionBudget)
			pdb.Spec.Selector.MatchLabels["app.kubernetes.io/name"] = "roadbok"
			return objs
		}, "PodDisruptionBudget roadbook/roadbook-api: selector"},
		{"a NetworkPolicy that selects no pod is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			np := find(t, objs, "NetworkPolicy", "roadbook-migrate").Typed.(*networkingv1.NetworkPolicy)
			np.Spec.PodSelector.MatchLabels["app.kubernetes.io/component"] = "migration"
			return objs
		}, "NetworkPolicy roadbook/roadbook-migrate: podSelector"},
		{"egress the target's own policy does not admit is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			np := find(t, objs, "NetworkPolicy", "roadbook-api").Typed.(*networkingv1.NetworkPolicy)
			np.Spec.Ingress[0].From = np.Spec.Ingress[0].From[:1] // drop "from mcp pods"
			return objs
		}, "may send to roadbook port 8080 but the policies there do not let it in"},
		{"a missing default-deny policy is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			out := objs[:0]
			for _, o := range objs {
				if o.Name != "default-deny" {
					out = append(out, o)
				}
			}
			return out
		}, "no default-deny NetworkPolicy"},
		{"a KEDA consumer other than the worker's is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			trigger(t, objs)["consumer"] = "worker"
			return objs
		}, `consumer "worker" is not the worker's ROADBOOK_WORKER_CONSUMER "roadbook-worker"`},
		{"a KEDA metadata field the scaler does not have is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			trigger(t, objs)["lagthreshold"] = "10"
			return objs
		}, "nats-jetstream metadata lagthreshold is not a field of the scaler"},
		{"a KEDA stream other than JOBS is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			trigger(t, objs)["stream"] = "EVENTS"
			return objs
		}, `stream "EVENTS", want "JOBS"`},
		{"KEDA without a policy letting it reach NATS monitoring is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			np := find(t, objs, "NetworkPolicy", "roadbook-clients").Typed.(*networkingv1.NetworkPolicy)
			np.Spec.Ingress = np.Spec.Ingress[:2]
			return objs
		}, "no NetworkPolicy in namespace nats lets namespace keda reach port 8222"},
		{"an unknown field in a custom resource is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			pm := find(t, objs, "PodMonitor", "roadbook").Custom
			pm.Object["spec"].(map[string]any)["podMetricEndpoints"] = []any{}
			return objs
		}, `unknown field "podMetricEndpoints"`},
		{"a PrometheusRule alert without severity is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			groups, _, _ := unstructuredSlice(find(t, objs, "PrometheusRule", "roadbook").Custom.Object, "spec", "groups")
			rules, _, _ := unstructuredSlice(groups[0].(map[string]any), "rules")
			delete(rules[0].(map[string]any), "labels")
			return objs
		}, "has no severity label"},
		{"an HPA also scaling the KEDA-scaled worker is caught", func(t *testing.T, objs []manifest.Object) []manifest.Object {
			find(t, objs, "HorizontalPodAutoscaler", "roadbook-mcp").Typed.(*autoscalingv2.HorizontalPodAutoscaler).Spec.ScaleTargetRef.Name = "roadbook-worker"
			return objs
		}, "also scales Deployment roadbook-worker"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := manifest.Check(tc.breakIt(t, clone(prod)), secret...)
			require.ErrorContains(t, err, tc.want)
			var p *manifest.Problem
			require.True(t, errors.As(err, &p), "problems are *manifest.Problem")
		})
	}

	t.Run("without the example Secret every secret reference is reported", func(t *testing.T) {
		t.Parallel()
		err := manifest.Check(clone(prod))
		require.ErrorContains(t, err, "Secret roadbook-secrets does not exist")
	})
}

func TestDecode(t *testing.T) {
	t.Parallel()
	t.Run("an unknown field in a built-in kind is rejected", func(t *testing.T) {
		t.Parallel()
		_, err := manifest.Decode([][]byte{[]byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  selectors:\n    a: b\n")})
		require.ErrorContains(t, err, "strict decode")
		require.ErrorContains(t, err, "selectors")
	})
	t.Run("a kind with no check is rejected", func(t *testing.T) {
		t.Parallel()
		_, err := manifest.Decode([][]byte{[]byte("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n")})
		require.ErrorIs(t, err, manifest.ErrUnknownKind)
	})
	t.Run("a built-in kind with no cross-check is reported by Check", func(t *testing.T) {
		t.Parallel()
		objs, err := manifest.Decode([][]byte{[]byte("apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\n  namespace: ns\n")})
		require.NoError(t, err)
		require.ErrorContains(t, manifest.Check(objs), "no cross-check for kind StatefulSet")
	})
}
