package servers

import (
	"flag"
	"fmt"
	"strings"
)

// exampleMarker marks every key of the example Secret (deploy/k8s/
// example-secret, used by the dev overlay): those values are published in
// this repository, so a service signing or verifying with one accepts
// tokens anybody can mint.
const exampleMarker = "FAKE-"

// allowExampleSecretsUsage is the usage of --allow-example-secrets, which
// only the dev overlay (a laptop cluster) sets.
const allowExampleSecretsUsage = "accept the published FAKE keys of deploy/k8s/example-secret; only for the dev overlay's laptop cluster, never in production ($ROADBOOK_ALLOW_EXAMPLE_SECRETS)"

// registerAllowExample adds --allow-example-secrets.
func registerAllowExample(fs *flag.FlagSet) *bool {
	return fs.Bool("allow-example-secrets", false, allowExampleSecretsUsage)
}

// refuseExampleSecrets refuses a key from the example Secret unless allowed,
// naming the flag and its variable, never the value. keys pairs each flag
// name with its value. `roadbook dev` makes its own random keys and never
// calls this.
func refuseExampleSecrets(allowed bool, keys ...[2]string) error {
	if allowed {
		return nil
	}
	for _, k := range keys {
		if strings.Contains(k[1], exampleMarker) {
			return fmt.Errorf("--%s ($ROADBOOK_%s) is a published example key (deploy/k8s/example-secret); set a secret of your own, or --allow-example-secrets on a laptop cluster",
				k[0], strings.ToUpper(strings.ReplaceAll(k[0], "-", "_")))
		}
	}
	return nil
}

// pageTokenKey checks --page-token-key: empty (each replica makes its own
// random key, so a page token only works on the replica that issued it) or
// at least 32 bytes.
func pageTokenKey(key string) ([]byte, error) {
	if key == "" {
		return nil, nil
	}
	if len(key) < 32 {
		return nil, fmt.Errorf("--page-token-key must be at least 32 bytes, got %d", len(key))
	}
	return []byte(key), nil
}
