// Package repotest holds the tests that read the repository as a whole
// rather than one module: checks a single module's tests cannot make, such
// as the direction of the dependencies between the go.work modules.
package repotest
