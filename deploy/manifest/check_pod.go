package manifest

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// checkDeployment checks that the selector selects the pod template and that
// the pod spec is complete (probes required: a Deployment serves traffic).
func checkDeployment(idx *index, o Object, d *appsv1.Deployment) []error {
	var errs []error
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	switch {
	case err != nil:
		errs = append(errs, problemf(o, "selector: %v", err))
	case d.Spec.Selector == nil || sel.Empty():
		errs = append(errs, problemf(o, "selector is empty"))
	case !sel.Matches(labels.Set(d.Spec.Template.Labels)):
		errs = append(errs, problemf(o, "selector %s does not match pod template labels %v", sel, d.Spec.Template.Labels))
	}
	errs = append(errs, checkGrace(o, &d.Spec.Template.Spec)...)
	return append(errs, checkPodSpec(idx, o, &d.Spec.Template.Spec, true)...)
}

// checkPodSpec checks every container (init containers too) of a pod:
// hardened security context, requests and limits, probes on declared ports,
// and every Secret and ConfigMap reference.
func checkPodSpec(idx *index, o Object, spec *corev1.PodSpec, wantProbes bool) []error {
	var errs []error
	psc := spec.SecurityContext
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		errs = append(errs, problemf(o, "pod securityContext.seccompProfile must be RuntimeDefault"))
	}
	podNonRoot := psc != nil && psc.RunAsNonRoot != nil && *psc.RunAsNonRoot
	if psc != nil && psc.RunAsUser != nil && *psc.RunAsUser == 0 {
		errs = append(errs, problemf(o, "pod runs as uid 0"))
	}
	all := append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...)
	for _, c := range all {
		errs = append(errs, checkContainerSecurity(o, c, podNonRoot)...)
		errs = append(errs, checkResources(o, c)...)
		errs = append(errs, checkRefs(idx, o, c)...)
	}
	p := pod{owner: o, ns: o.Namespace, spec: spec}
	for _, c := range spec.Containers {
		probes := map[string]*corev1.Probe{"startupProbe": c.StartupProbe, "livenessProbe": c.LivenessProbe, "readinessProbe": c.ReadinessProbe}
		for name, pr := range probes {
			if pr == nil {
				if wantProbes {
					errs = append(errs, problemf(o, "container %s has no %s", c.Name, name))
				}
				continue
			}
			if port, ok := probePort(pr); ok && !p.containerPort(port.StrVal, port.IntVal) {
				errs = append(errs, problemf(o, "container %s %s port %s is not a container port", c.Name, name, port.String()))
			}
		}
	}
	for _, v := range spec.Volumes {
		if s := v.Secret; s != nil && (s.Optional == nil || !*s.Optional) {
			if _, ok := idx.secrets[nsName{o.Namespace, s.SecretName}]; !ok {
				errs = append(errs, problemf(o, "volume %s: Secret %s does not exist", v.Name, s.SecretName))
			}
		}
		if cm := v.ConfigMap; cm != nil && (cm.Optional == nil || !*cm.Optional) {
			if _, ok := idx.configMaps[nsName{o.Namespace, cm.Name}]; !ok {
				errs = append(errs, problemf(o, "volume %s: ConfigMap %s does not exist", v.Name, cm.Name))
			}
		}
	}
	return errs
}

// checkContainerSecurity enforces the restricted profile: non-root, no
// privilege escalation, read-only root filesystem, every capability dropped.
func checkContainerSecurity(o Object, c corev1.Container, podNonRoot bool) []error {
	sc := c.SecurityContext
	if sc == nil {
		return []error{problemf(o, "container %s has no securityContext", c.Name)}
	}
	var errs []error
	if !podNonRoot && (sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot) {
		errs = append(errs, problemf(o, "container %s may run as root (runAsNonRoot unset)", c.Name))
	}
	if sc.RunAsNonRoot != nil && !*sc.RunAsNonRoot {
		errs = append(errs, problemf(o, "container %s sets runAsNonRoot: false", c.Name))
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		errs = append(errs, problemf(o, "container %s must set allowPrivilegeEscalation: false", c.Name))
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		errs = append(errs, problemf(o, "container %s must set readOnlyRootFilesystem: true", c.Name))
	}
	if sc.Privileged != nil && *sc.Privileged {
		errs = append(errs, problemf(o, "container %s is privileged", c.Name))
	}
	dropsAll := false
	if sc.Capabilities != nil {
		for _, cap := range sc.Capabilities.Drop {
			dropsAll = dropsAll || cap == "ALL"
		}
		if len(sc.Capabilities.Add) > 0 {
			errs = append(errs, problemf(o, "container %s adds capabilities %v", c.Name, sc.Capabilities.Add))
		}
	}
	if !dropsAll {
		errs = append(errs, problemf(o, "container %s must drop ALL capabilities", c.Name))
	}
	if sc.SeccompProfile != nil && sc.SeccompProfile.Type == corev1.SeccompProfileTypeUnconfined {
		errs = append(errs, problemf(o, "container %s sets an Unconfined seccomp profile", c.Name))
	}
	return errs
}

// checkResources requires CPU and memory requests and limits, requests not
// above limits.
func checkResources(o Object, c corev1.Container) []error {
	var errs []error
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, hasReq := c.Resources.Requests[r]
		lim, hasLim := c.Resources.Limits[r]
		if !hasReq {
			errs = append(errs, problemf(o, "container %s has no %s request", c.Name, r))
		}
		if !hasLim {
			errs = append(errs, problemf(o, "container %s has no %s limit", c.Name, r))
		}
		if hasReq && hasLim && req.Cmp(lim) > 0 {
			errs = append(errs, problemf(o, "container %s %s request %s exceeds its limit %s", c.Name, r, req.String(), lim.String()))
		}
	}
	return errs
}

// checkRefs checks that every Secret and ConfigMap key a container reads
// (env valueFrom, envFrom) exists, unless the reference is optional.
func checkRefs(idx *index, o Object, c corev1.Container) []error {
	var errs []error
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			continue
		}
		if ref := e.ValueFrom.SecretKeyRef; ref != nil && (ref.Optional == nil || !*ref.Optional) {
			keys, ok := idx.secrets[nsName{o.Namespace, ref.Name}]
			switch {
			case !ok:
				errs = append(errs, problemf(o, "container %s env %s: Secret %s does not exist", c.Name, e.Name, ref.Name))
			case !keys[ref.Key]:
				errs = append(errs, problemf(o, "container %s env %s: Secret %s has no key %s", c.Name, e.Name, ref.Name, ref.Key))
			}
		}
		if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil && (ref.Optional == nil || !*ref.Optional) {
			data, ok := idx.configMaps[nsName{o.Namespace, ref.Name}]
			_, hasKey := data[ref.Key]
			switch {
			case !ok:
				errs = append(errs, problemf(o, "container %s env %s: ConfigMap %s does not exist", c.Name, e.Name, ref.Name))
			case !hasKey:
				errs = append(errs, problemf(o, "container %s env %s: ConfigMap %s has no key %s", c.Name, e.Name, ref.Name, ref.Key))
			}
		}
	}
	for _, src := range c.EnvFrom {
		if ref := src.SecretRef; ref != nil && (ref.Optional == nil || !*ref.Optional) {
			if _, ok := idx.secrets[nsName{o.Namespace, ref.Name}]; !ok {
				errs = append(errs, problemf(o, "container %s envFrom: Secret %s does not exist", c.Name, ref.Name))
			}
		}
		if ref := src.ConfigMapRef; ref != nil && (ref.Optional == nil || !*ref.Optional) {
			if _, ok := idx.configMaps[nsName{o.Namespace, ref.Name}]; !ok {
				errs = append(errs, problemf(o, "container %s envFrom: ConfigMap %s does not exist", c.Name, ref.Name))
			}
		}
	}
	return errs
}

// ShutdownTimeoutEnv is the env var bounding a service's drain after SIGTERM;
// the pod's grace period must outlast it, plus any preStop sleep, or the
// kubelet kills in-flight work.
const ShutdownTimeoutEnv = "ROADBOOK_SHUTDOWN_TIMEOUT"

// checkGrace requires terminationGracePeriodSeconds to be set and longer than
// every container's preStop sleep plus its shutdown timeout.
func checkGrace(o Object, spec *corev1.PodSpec) []error {
	if spec.TerminationGracePeriodSeconds == nil {
		return []error{problemf(o, "terminationGracePeriodSeconds is not set")}
	}
	grace := time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
	var errs []error
	for _, c := range spec.Containers {
		var need time.Duration
		if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
			need += time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
		}
		for _, e := range c.Env {
			if e.Name != ShutdownTimeoutEnv {
				continue
			}
			d, err := time.ParseDuration(e.Value)
			if err != nil {
				errs = append(errs, problemf(o, "container %s %s %q: %v", c.Name, ShutdownTimeoutEnv, e.Value, err))
				continue
			}
			need += d
		}
		if need >= grace {
			errs = append(errs, problemf(o, "container %s needs %s to drain but terminationGracePeriodSeconds is %s", c.Name, need, grace))
		}
	}
	return errs
}
