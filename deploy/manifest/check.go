package manifest

import (
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// Check cross-checks every object in objs against the others and returns all
// Problems joined (nil when there are none). provided are objects the cluster
// is assumed to have already, such as the Secret created from
// secret.example.yaml in production. Every kind must have a check here, so a
// new kind of object cannot slip through unchecked.
func Check(objs []Object, provided ...Object) error {
	idx := newIndex(objs, provided)
	var errs []error
	for _, o := range objs {
		switch t := o.Typed.(type) {
		case *appsv1.Deployment:
			errs = append(errs, checkDeployment(idx, o, t)...)
		case *batchv1.Job:
			errs = append(errs, checkPodSpec(idx, o, &t.Spec.Template.Spec, false)...)
			if len(t.Spec.Template.Labels) == 0 {
				errs = append(errs, problemf(o, "pod template has no labels: no NetworkPolicy can select it"))
			}
		case *corev1.Service:
			errs = append(errs, checkService(idx, o, t)...)
		case *policyv1.PodDisruptionBudget:
			errs = append(errs, checkSelects(idx, o, t.Spec.Selector)...)
		case *autoscalingv2.HorizontalPodAutoscaler:
			errs = append(errs, checkHPA(idx, o, t)...)
		case *networkingv1.NetworkPolicy:
			errs = append(errs, checkNetworkPolicy(idx, o, t)...)
		case *networkingv1.Ingress:
			errs = append(errs, checkIngress(idx, o, t)...)
		case *corev1.Secret, *corev1.ConfigMap, *corev1.Namespace, *corev1.ServiceAccount,
			*rbacv1.Role, *rbacv1.RoleBinding:
			// Targets of references, checked from the referring side.
		case nil:
			errs = append(errs, checkCustom(idx, o)...)
		default:
			errs = append(errs, problemf(o, "no cross-check for kind %s: add one to manifest.Check", o.Kind))
		}
	}
	errs = append(errs, checkDefaultDeny(idx)...)
	return errors.Join(errs...)
}
