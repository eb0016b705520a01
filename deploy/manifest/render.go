package manifest

import (
	"fmt"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Render builds the kustomization in dir the way `kustomize build dir` would and
// returns every object as YAML, one entry per object. It uses kustomize's Go API
// rather than a kubectl binary because a fresh machine or CI runner has none.
func Render(dir string) ([][]byte, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", dir, err)
	}
	out := make([][]byte, 0, resMap.Size())
	for _, res := range resMap.Resources() {
		y, err := res.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("render %s: %s as YAML: %w", dir, res.CurId(), err)
		}
		out = append(out, y)
	}
	return out, nil
}
