package manifest_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/roadbook/roadbook/deploy/manifest"
)

// k8sDir is deploy/k8s, relative to this package.
const k8sDir = "../k8s"

// overlays are every overlay the repository ships; each is rendered and checked.
var overlays = []string{"dev", "prod"}

// render renders and strictly decodes one kustomization under deploy/k8s.
func render(t *testing.T, rel string) []manifest.Object {
	t.Helper()
	docs, err := manifest.Render(filepath.Join(k8sDir, rel))
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	objs, err := manifest.Decode(docs)
	require.NoError(t, err)
	return objs
}

// exampleSecret is the Secret an operator creates in production, with the
// keys of secret.example.yaml.
func exampleSecret(t *testing.T) []manifest.Object {
	t.Helper()
	objs := render(t, "example-secret")
	require.Len(t, objs, 1)
	require.Equal(t, "Secret", objs[0].Kind)
	return objs
}

// find returns the rendered object of that kind and name, failing if absent.
func find(t *testing.T, objs []manifest.Object, kind, name string) manifest.Object {
	t.Helper()
	for _, o := range objs {
		if o.Kind == kind && o.Name == name {
			return o
		}
	}
	require.FailNowf(t, "object not rendered", "%s %s", kind, name)
	return manifest.Object{}
}

// kinds counts rendered objects by kind.
func kinds(objs []manifest.Object) map[string]int {
	out := map[string]int{}
	for _, o := range objs {
		out[o.Kind]++
	}
	return out
}

func TestOverlays(t *testing.T) {
	t.Parallel()
	for _, overlay := range overlays {
		t.Run("the "+overlay+" overlay renders, decodes strictly and passes every cross-check", func(t *testing.T) {
			t.Parallel()
			objs := render(t, filepath.Join("overlays", overlay))
			require.NoError(t, manifest.Check(objs, exampleSecret(t)...))
			k := kinds(objs)
			require.Equal(t, 3, k["Deployment"], "api, worker, mcp")
			require.Equal(t, 1, k["Job"], "the migration Job")
			require.Equal(t, 2, k["Service"])
			require.Equal(t, 2, k["Ingress"])
			require.Equal(t, 3, k["PodDisruptionBudget"])
			require.GreaterOrEqual(t, k["NetworkPolicy"], 7)
			for _, o := range objs {
				if o.Kind != "Namespace" {
					require.NotEmpty(t, o.Namespace, "%s has no namespace", o)
				}
			}
		})
	}
}
