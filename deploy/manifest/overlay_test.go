package manifest_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// wantPorts are the container ports the services listen on (ARCHITECTURE §7,
// MCP §9); ROADBOOK_HTTP_ADDR must agree.
var wantPorts = map[string]int32{"roadbook-api": 8080, "roadbook-mcp": 8090, "roadbook-worker": 9090}

func TestDeployments(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlays {
		objs := render(t, "overlays/"+overlay)
		for name, port := range wantPorts {
			t.Run("in "+overlay+" "+name+" runs its roadbook subcommand on port "+strconv.Itoa(int(port)), func(t *testing.T) {
				t.Parallel()
				d := find(t, objs, "Deployment", name).Typed.(*appsv1.Deployment)
				require.Len(t, d.Spec.Template.Spec.Containers, 1)
				c := d.Spec.Template.Spec.Containers[0]
				require.Equal(t, []string{strings.TrimPrefix(name, "roadbook-")}, c.Args)
				require.Equal(t, port, c.Ports[0].ContainerPort)
				require.Equal(t, "http", c.Ports[0].Name)
				env := map[string]string{}
				for _, e := range c.Env {
					env[e.Name] = e.Value
				}
				require.Equal(t, ":"+strconv.Itoa(int(port)), env["ROADBOOK_HTTP_ADDR"])
				require.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
				require.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
				if name != "roadbook-api" {
					require.Len(t, c.Ports, 1)
					return
				}
				// The api's /metrics and reflection are on a second port that
				// no Service exposes; the probes use it too.
				require.Len(t, c.Ports, 2)
				require.Equal(t, "admin", c.Ports[1].Name)
				require.Equal(t, ":"+strconv.Itoa(int(c.Ports[1].ContainerPort)), env["ROADBOOK_ADMIN_ADDR"])
				require.Equal(t, "admin", c.ReadinessProbe.HTTPGet.Port.StrVal)
				require.Equal(t, "admin", c.LivenessProbe.HTTPGet.Port.StrVal)
				for _, p := range find(t, objs, "Service", "roadbook-api").Typed.(*corev1.Service).Spec.Ports {
					require.NotEqual(t, "admin", p.TargetPort.StrVal, "the admin port is not behind the Service")
				}
				require.NotContains(t, c.Image, ":latest", "overlays pin the image")
			})
		}
	}

	t.Run("only the dev overlay lets api and mcp accept the published example keys", func(t *testing.T) {
		t.Parallel()
		for _, overlay := range overlays {
			objs := render(t, "overlays/"+overlay)
			for _, name := range []string{"roadbook-api", "roadbook-mcp", "roadbook-worker"} {
				allowed := ""
				for _, e := range find(t, objs, "Deployment", name).Typed.(*appsv1.Deployment).Spec.Template.Spec.Containers[0].Env {
					if e.Name == "ROADBOOK_ALLOW_EXAMPLE_SECRETS" {
						allowed = e.Value
					}
				}
				want := ""
				if overlay == "dev" && name != "roadbook-worker" {
					want = "true"
				}
				require.Equal(t, want, allowed, "%s in %s", name, overlay)
			}
		}
	})

	t.Run("the dev overlay runs one replica of each and no autoscalers", func(t *testing.T) {
		t.Parallel()
		objs := render(t, "overlays/dev")
		for name := range wantPorts {
			require.EqualValues(t, 1, *find(t, objs, "Deployment", name).Typed.(*appsv1.Deployment).Spec.Replicas)
		}
		k := kinds(objs)
		require.Zero(t, k["HorizontalPodAutoscaler"])
		require.Zero(t, k["ScaledObject"])
		find(t, objs, "Secret", "roadbook-secrets")
	})

	t.Run("the prod overlay runs several replicas, autoscales and ships no Secret", func(t *testing.T) {
		t.Parallel()
		objs := render(t, "overlays/prod")
		for name := range wantPorts {
			require.GreaterOrEqual(t, *find(t, objs, "Deployment", name).Typed.(*appsv1.Deployment).Spec.Replicas, int32(2))
		}
		find(t, objs, "HorizontalPodAutoscaler", "roadbook-api")
		find(t, objs, "HorizontalPodAutoscaler", "roadbook-mcp")
		find(t, objs, "ScaledObject", "roadbook-worker")
		find(t, objs, "PrometheusRule", "roadbook")
		require.Zero(t, kinds(objs)["Secret"], "production secrets never come from the repository")
		in := find(t, objs, "Ingress", "roadbook-api").Typed.(*networkingv1.Ingress)
		require.NotContains(t, in.Spec.Rules[0].Host, "example.com", "prod sets its own host")
		cm := find(t, objs, "ConfigMap", "roadbook-config").Typed.(*corev1.ConfigMap)
		require.Equal(t, "3", cm.Data["ROADBOOK_STREAM_REPLICAS"], "the 3-node NATS cluster keeps streams and buckets at R3")
	})

	t.Run("api and mcp run GOGC=400 under a GOMEMLIMIT below their memory limit", func(t *testing.T) {
		t.Parallel()
		for _, overlay := range overlays {
			objs := render(t, "overlays/"+overlay)
			for _, name := range []string{"roadbook-api", "roadbook-mcp"} {
				c := find(t, objs, "Deployment", name).Typed.(*appsv1.Deployment).Spec.Template.Spec.Containers[0]
				env := map[string]string{}
				for _, e := range c.Env {
					_, dup := env[e.Name]
					require.False(t, dup, "%s in %s sets %s twice", name, overlay, e.Name)
					env[e.Name] = e.Value
				}
				require.Equal(t, "400", env["GOGC"], "%s in %s", name, overlay)
				limitMiB, ok := strings.CutSuffix(env["GOMEMLIMIT"], "MiB")
				require.True(t, ok, "%s in %s: GOMEMLIMIT %q is in MiB", name, overlay, env["GOMEMLIMIT"])
				soft, err := strconv.ParseInt(limitMiB, 10, 64)
				require.NoError(t, err)
				hard := c.Resources.Limits.Memory().Value() >> 20
				require.Less(t, soft, hard, "%s in %s: GOMEMLIMIT %d MiB must leave room under the %d MiB limit", name, overlay, soft, hard)
				require.GreaterOrEqual(t, soft, hard*3/4, "%s in %s: GOMEMLIMIT far below the limit wastes memory on GC", name, overlay)
			}
		}
	})

	t.Run("the worker's grace period lets a long job finish", func(t *testing.T) {
		t.Parallel()
		objs := render(t, "overlays/prod")
		d := find(t, objs, "Deployment", "roadbook-worker").Typed.(*appsv1.Deployment)
		require.GreaterOrEqual(t, *d.Spec.Template.Spec.TerminationGracePeriodSeconds, int64(300))
	})
}

func TestIngress(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlays {
		t.Run("in "+overlay+" one MCP session goes to one replica and streams get long timeouts", func(t *testing.T) {
			t.Parallel()
			objs := render(t, "overlays/"+overlay)
			mcp := find(t, objs, "Ingress", "roadbook-mcp").Typed.(*networkingv1.Ingress)
			require.Equal(t, "$http_mcp_session_id", mcp.Annotations["nginx.ingress.kubernetes.io/upstream-hash-by"])
			paths := map[string]string{}
			for _, in := range []*networkingv1.Ingress{mcp, find(t, objs, "Ingress", "roadbook-api").Typed.(*networkingv1.Ingress)} {
				timeout, err := strconv.Atoi(in.Annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"])
				require.NoError(t, err)
				require.Greater(t, timeout, 1800, "longer than the 30 min MCP session idle timeout")
				for _, p := range in.Spec.Rules[0].HTTP.Paths {
					paths[p.Path] = p.Backend.Service.Name
				}
			}
			require.Equal(t, map[string]string{
				"/": "roadbook-api", "/mcp": "roadbook-mcp", "/.well-known/oauth-protected-resource": "roadbook-mcp",
			}, paths)
			cm := find(t, objs, "ConfigMap", "roadbook-config").Typed.(*corev1.ConfigMap)
			require.Equal(t, cm.Data["ROADBOOK_PUBLIC_BASE_URL"]+"/mcp", cm.Data["ROADBOOK_MCP_AUDIENCE"])
		})
	}
}

func TestPrometheusRule(t *testing.T) {
	t.Parallel()
	t.Run("alerts cover relay lag, open breakers by upstream and failure events by kind", func(t *testing.T) {
		t.Parallel()
		pr := find(t, render(t, "overlays/prod"), "PrometheusRule", "roadbook").Custom
		groups, _, _ := unstructuredSlice(pr.Object, "spec", "groups")
		var exprs []string
		for _, g := range groups {
			rules, _, _ := unstructuredSlice(g.(map[string]any), "rules")
			for _, r := range rules {
				exprs = append(exprs, r.(map[string]any)["expr"].(string))
			}
		}
		all := strings.Join(exprs, "\n")
		require.Contains(t, all, "roadbook_relay_lag_seconds")
		require.Contains(t, all, "max by (upstream) (roadbook_breaker_state) == 2")
		require.Contains(t, all, "sum by (kind) (increase(roadbook_failure_events_total[")
	})
}

// unstructuredSlice reads a list field of an unstructured object.
func unstructuredSlice(obj map[string]any, fields ...string) ([]any, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		cur = m[f]
	}
	s, ok := cur.([]any)
	return s, ok, nil
}
