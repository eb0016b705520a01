package manifest

import (
	"fmt"
	"k8s.io/apimachinery/pkg/api/meta"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Object is one rendered manifest: either a built-in kind decoded into its
// client-go type (Typed) or a custom resource kept as Unstructured (Custom).
// Exactly one of the two is set.
type Object struct {
	Kind      string
	Namespace string
	Name      string
	Typed     runtime.Object
	Custom    *unstructured.Unstructured
}

// String names the object the way error messages do: Kind namespace/name.
func (o Object) String() string {
	return fmt.Sprintf("%s %s/%s", o.Kind, o.Namespace, o.Name)
}

// Problem is one thing wrong with one object. Check returns every Problem it
// finds joined, so one run lists all of them.
type Problem struct {
	Object string
	Msg    string
}

// Error reports the object and what is wrong with it.
func (p *Problem) Error() string { return p.Object + ": " + p.Msg }

// problemf builds a Problem about o.
func problemf(o Object, format string, args ...any) error {
	return &Problem{Object: o.String(), Msg: fmt.Sprintf(format, args...)}
}

// labelsOf returns an object's metadata labels.
func labelsOf(o Object) map[string]string {
	if o.Custom != nil {
		return o.Custom.GetLabels()
	}
	if m, err := meta.Accessor(o.Typed); err == nil {
		return m.GetLabels()
	}
	return nil
}
