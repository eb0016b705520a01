package manifest

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// strictDecoder rejects unknown and duplicate fields, so a misspelt or
// misplaced field fails here instead of being dropped by the API server.
var strictDecoder = serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()

// customKinds are the custom resources the overlays use; client-go's scheme
// does not know them, so they are decoded as unstructured and checked field
// by field (custom.go).
var customKinds = map[schema.GroupVersionKind]bool{
	{Group: "keda.sh", Version: "v1alpha1", Kind: "ScaledObject"}:           true,
	{Group: "monitoring.coreos.com", Version: "v1", Kind: "PrometheusRule"}: true,
	{Group: "monitoring.coreos.com", Version: "v1", Kind: "PodMonitor"}:     true,
}

// ErrUnknownKind means a rendered object is neither in client-go's scheme nor
// one of the custom kinds this package knows how to check.
var ErrUnknownKind = errors.New("unknown kind")

// Decode strictly decodes every rendered YAML document. Built-in kinds become
// their client-go types; the known custom kinds become unstructured objects.
func Decode(docs [][]byte) ([]Object, error) {
	out := make([]Object, 0, len(docs))
	var errs []error
	for _, doc := range docs {
		obj, err := decodeOne(doc)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, obj)
	}
	return out, errors.Join(errs...)
}

// decodeOne decodes one document, typed when the scheme knows its kind.
func decodeOne(doc []byte) (Object, error) {
	var u unstructured.Unstructured
	if err := yaml.Unmarshal(doc, &u.Object); err != nil {
		return Object{}, fmt.Errorf("decode: %w", err)
	}
	gvk := u.GroupVersionKind()
	base := Object{Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
	if customKinds[gvk] {
		base.Custom = &u
		return base, nil
	}
	typed, _, err := strictDecoder.Decode(doc, nil, nil)
	if runtime.IsNotRegisteredError(err) {
		return Object{}, fmt.Errorf("%s: %w %s", base, ErrUnknownKind, gvk)
	}
	if err != nil {
		return Object{}, fmt.Errorf("%s: strict decode: %w", base, err)
	}
	if _, err := meta.Accessor(typed); err != nil {
		return Object{}, fmt.Errorf("%s: %w", base, err)
	}
	base.Typed = typed
	return base, nil
}
