package manifest

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// nsName identifies a namespaced object of a known kind.
type nsName struct{ ns, name string }

// pod is the pod template of a workload (Deployment or Job): what selectors,
// probes and references are checked against.
type pod struct {
	owner  Object
	ns     string
	labels labels.Set
	spec   *corev1.PodSpec
}

// index gathers the rendered objects by kind so checks can look each other up.
type index struct {
	objects     []Object
	pods        []pod
	secrets     map[nsName]map[string]bool
	configMaps  map[nsName]map[string]string
	services    map[nsName]*corev1.Service
	deployments map[nsName]*appsv1.Deployment
}

// newIndex indexes objs plus provided, the objects assumed to exist in the
// cluster already (the Secret an operator creates from secret.example.yaml).
func newIndex(objs []Object, provided []Object) *index {
	idx := &index{
		objects:     objs,
		secrets:     map[nsName]map[string]bool{},
		configMaps:  map[nsName]map[string]string{},
		services:    map[nsName]*corev1.Service{},
		deployments: map[nsName]*appsv1.Deployment{},
	}
	for _, o := range append(append([]Object{}, objs...), provided...) {
		key := nsName{o.Namespace, o.Name}
		switch t := o.Typed.(type) {
		case *corev1.Secret:
			keys := map[string]bool{}
			for k := range t.Data {
				keys[k] = true
			}
			for k := range t.StringData {
				keys[k] = true
			}
			idx.secrets[key] = keys
		case *corev1.ConfigMap:
			data := map[string]string{}
			for k, v := range t.Data {
				data[k] = v
			}
			for k := range t.BinaryData {
				data[k] = ""
			}
			idx.configMaps[key] = data
		case *corev1.Service:
			idx.services[key] = t
		case *appsv1.Deployment:
			idx.deployments[key] = t
			idx.pods = append(idx.pods, pod{owner: o, ns: o.Namespace, labels: t.Spec.Template.Labels, spec: &t.Spec.Template.Spec})
		case *batchv1.Job:
			idx.pods = append(idx.pods, pod{owner: o, ns: o.Namespace, labels: t.Spec.Template.Labels, spec: &t.Spec.Template.Spec})
		}
	}
	return idx
}

// selectPods returns the pods in ns that sel selects. A nil selector selects
// nothing, as it does for Services and PDBs; callers that mean "all" pass an
// empty one.
func (idx *index) selectPods(ns string, sel *metav1.LabelSelector) ([]pod, error) {
	if sel == nil {
		return nil, nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, err
	}
	var out []pod
	for _, p := range idx.pods {
		if p.ns == ns && s.Matches(p.labels) {
			out = append(out, p)
		}
	}
	return out, nil
}

// hasPods reports whether any rendered workload runs in ns: only there can a
// selector be checked against real pod labels.
func (idx *index) hasPods(ns string) bool {
	for _, p := range idx.pods {
		if p.ns == ns {
			return true
		}
	}
	return false
}

// containerPort resolves a probe's or Service's target port (a name or a
// number) against the pod's containers.
func (p pod) containerPort(name string, number int32) bool {
	for _, c := range p.spec.Containers {
		for _, cp := range c.Ports {
			if (name != "" && cp.Name == name) || (name == "" && cp.ContainerPort == number) {
				return true
			}
		}
	}
	return false
}

// envValue resolves the value a container's env var gets: a literal value or
// a ConfigMap key. Secret values are not resolved.
func (idx *index) envValue(ns string, c corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name != name {
			continue
		}
		if e.ValueFrom == nil {
			return e.Value, true
		}
		if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil {
			v, ok := idx.configMaps[nsName{ns, ref.Name}][ref.Key]
			return v, ok
		}
	}
	return "", false
}
