// Package domain holds Roadbook's rules as pure Go: no network, no database and
// no clock reads except an injected clock, so the API decides with exactly the
// same code the workers compute with. The rules live in subpackages: route
// (GPX and geometry), pacing (stage cutting), trip (the aggregate), alert,
// export and thirdparty (cleaning text Roadbook did not write).
package domain
