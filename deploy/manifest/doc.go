// Package manifest renders Roadbook's kustomize overlays (deploy/k8s) with
// kustomize's Go API, decodes every object strictly, and cross-checks the
// objects against each other: selectors against pod labels, probe and Service
// ports against container ports, Secret and ConfigMap keys against what the
// containers reference, the KEDA trigger against the worker's consumer.
//
// It exists so that a manifest mistake fails `go test` on a machine with no
// cluster and no kubectl, instead of failing a rollout.
package manifest
