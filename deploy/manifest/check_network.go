package manifest

import (
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// nsNameLabel is the label Kubernetes puts on every namespace with its name;
// the policies select namespaces by it.
const nsNameLabel = "kubernetes.io/metadata.name"

// checkNetworkPolicy checks that a policy selects pods, that its ports are
// ports those pods (or, for egress, the peers) declare, that its peers select
// pods where they can be seen, and that every egress to pods isolated by
// another rendered policy is allowed by that policy's ingress too.
func checkNetworkPolicy(idx *index, o Object, np *networkingv1.NetworkPolicy) []error {
	var errs []error
	selected, err := idx.selectPods(o.Namespace, &np.Spec.PodSelector)
	if err != nil {
		return []error{problemf(o, "podSelector: %v", err)}
	}
	if idx.hasPods(o.Namespace) && len(selected) == 0 {
		errs = append(errs, problemf(o, "podSelector %s selects no pod", metav1.FormatLabelSelector(&np.Spec.PodSelector)))
	}
	for i, r := range np.Spec.Ingress {
		for _, port := range r.Ports {
			if port.Port != nil && len(selected) > 0 && !anyDeclares(selected, *port.Port) {
				errs = append(errs, problemf(o, "ingress rule %d: port %s is not a container port of the selected pods", i, port.Port.String()))
			}
		}
		for _, peer := range r.From {
			errs = append(errs, checkPeer(idx, o, "ingress", i, peer)...)
		}
	}
	for i, r := range np.Spec.Egress {
		for _, peer := range r.To {
			errs = append(errs, checkPeer(idx, o, "egress", i, peer)...)
			ns, ok := peerNamespace(o.Namespace, peer)
			if !ok || peer.IPBlock != nil {
				continue
			}
			targets, _ := idx.selectPods(ns, orAll(peer.PodSelector))
			for _, port := range r.Ports {
				if port.Port != nil && len(targets) > 0 && !anyDeclares(targets, *port.Port) {
					errs = append(errs, problemf(o, "egress rule %d: port %s is not a container port of the peer pods", i, port.Port.String()))
				}
				if port.Port == nil {
					continue
				}
				for _, s := range selected {
					if !idx.ingressAllows(ns, peer.PodSelector, s, *port.Port) {
						errs = append(errs, problemf(o, "egress rule %d: %s may send to %s port %s but the policies there do not let it in",
							i, s.owner, ns, port.Port.String()))
					}
				}
			}
		}
	}
	return errs
}

// checkPeer requires a peer that selects pods in a rendered namespace to
// select at least one of them.
func checkPeer(idx *index, o Object, dir string, rule int, peer networkingv1.NetworkPolicyPeer) []error {
	ns, ok := peerNamespace(o.Namespace, peer)
	if !ok || peer.IPBlock != nil || !idx.hasPods(ns) {
		return nil
	}
	pods, err := idx.selectPods(ns, orAll(peer.PodSelector))
	if err != nil {
		return []error{problemf(o, "%s rule %d: peer selector: %v", dir, rule, err)}
	}
	if len(pods) == 0 {
		return []error{problemf(o, "%s rule %d: peer %s in namespace %s selects no pod", dir, rule, metav1.FormatLabelSelector(peer.PodSelector), ns)}
	}
	return nil
}

// peerNamespace names the one namespace a peer points at: the policy's own
// when it has no namespaceSelector, else the one its name label selects.
func peerNamespace(own string, peer networkingv1.NetworkPolicyPeer) (string, bool) {
	if peer.NamespaceSelector == nil {
		return own, true
	}
	name, ok := peer.NamespaceSelector.MatchLabels[nsNameLabel]
	return name, ok
}

// orAll turns an absent pod selector into the empty one, which selects all.
func orAll(sel *metav1.LabelSelector) *metav1.LabelSelector {
	if sel == nil {
		return &metav1.LabelSelector{}
	}
	return sel
}

// anyDeclares reports whether one of pods declares port (by name or number).
func anyDeclares(pods []pod, port intstr.IntOrString) bool {
	return slices.ContainsFunc(pods, func(p pod) bool { return p.containerPort(port.StrVal, port.IntVal) })
}

// ingressAllows reports whether pod s may reach port on the pods of ns that
// target selects, given the rendered policies of ns: allowed when none of
// them isolates those pods for ingress, or one of them lets s in on port.
// Pods of a namespace that is not rendered are represented by target's labels.
func (idx *index) ingressAllows(ns string, target *metav1.LabelSelector, s pod, port intstr.IntOrString) bool {
	targets, _ := idx.selectPods(ns, orAll(target))
	if !idx.hasPods(ns) {
		targets = []pod{{ns: ns, labels: orAll(target).MatchLabels}}
	}
	isolated := false
	for _, o := range idx.objects {
		q, ok := o.Typed.(*networkingv1.NetworkPolicy)
		if !ok || o.Namespace != ns || !hasType(q, networkingv1.PolicyTypeIngress) {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(&q.Spec.PodSelector)
		if err != nil || !slices.ContainsFunc(targets, func(t pod) bool { return sel.Matches(t.labels) }) {
			continue
		}
		isolated = true
		for _, r := range q.Spec.Ingress {
			if ruleAdmits(idx, ns, r, s, port, targets) {
				return true
			}
		}
	}
	return !isolated
}

// ruleAdmits reports whether one ingress rule of a policy in ns admits pod s
// on port (a named port resolved against the targets' containers).
func ruleAdmits(idx *index, ns string, r networkingv1.NetworkPolicyIngressRule, s pod, port intstr.IntOrString, targets []pod) bool {
	fromOK := len(r.From) == 0
	for _, peer := range r.From {
		if peer.IPBlock != nil {
			continue
		}
		nsOK := (peer.NamespaceSelector == nil && s.ns == ns) || (peer.NamespaceSelector != nil && idx.namespaceMatches(peer.NamespaceSelector, s.ns))
		podSel, err := metav1.LabelSelectorAsSelector(orAll(peer.PodSelector))
		if nsOK && err == nil && podSel.Matches(s.labels) {
			fromOK = true
		}
	}
	if !fromOK {
		return false
	}
	if len(r.Ports) == 0 {
		return true
	}
	want := portNumbers(targets, port)
	for _, p := range r.Ports {
		if p.Port == nil {
			return true
		}
		if p.Port.String() == port.String() {
			return true
		}
		for _, n := range portNumbers(targets, *p.Port) {
			if slices.Contains(want, n) {
				return true
			}
		}
	}
	return false
}

// portNumbers resolves a port name to the numbers the pods declare for it.
func portNumbers(pods []pod, port intstr.IntOrString) []int32 {
	if port.Type == intstr.Int {
		return []int32{port.IntVal}
	}
	var out []int32
	for _, p := range pods {
		if p.spec == nil {
			continue
		}
		for _, c := range p.spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == port.StrVal {
					out = append(out, cp.ContainerPort)
				}
			}
		}
	}
	return out
}

// namespaceMatches applies a namespace selector to namespace ns: its name
// label, plus the labels of its Namespace object when rendered.
func (idx *index) namespaceMatches(sel *metav1.LabelSelector, ns string) bool {
	set := labels.Set{nsNameLabel: ns}
	for _, o := range idx.objects {
		if o.Kind == "Namespace" && o.Name == ns && o.Typed != nil {
			for k, v := range labelsOf(o) {
				set[k] = v
			}
		}
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	return err == nil && s.Matches(set)
}

// hasType reports whether a policy applies to the given direction.
func hasType(np *networkingv1.NetworkPolicy, t networkingv1.PolicyType) bool {
	return slices.Contains(np.Spec.PolicyTypes, t)
}

// checkDefaultDeny requires, in every namespace that runs pods, a policy that
// selects every pod and allows nothing either way: what is not allowed by a
// named policy is denied.
func checkDefaultDeny(idx *index) []error {
	namespaces := map[string]bool{}
	for _, p := range idx.pods {
		namespaces[p.ns] = true
	}
	var errs []error
	for ns := range namespaces {
		found := false
		for _, o := range idx.objects {
			np, ok := o.Typed.(*networkingv1.NetworkPolicy)
			if ok && o.Namespace == ns && len(np.Spec.PodSelector.MatchLabels) == 0 && len(np.Spec.PodSelector.MatchExpressions) == 0 &&
				hasType(np, networkingv1.PolicyTypeIngress) && hasType(np, networkingv1.PolicyTypeEgress) &&
				len(np.Spec.Ingress) == 0 && len(np.Spec.Egress) == 0 {
				found = true
			}
		}
		if !found {
			errs = append(errs, &Problem{Object: "Namespace " + ns, Msg: "no default-deny NetworkPolicy (empty podSelector, Ingress and Egress, no rules)"})
		}
	}
	return errs
}
