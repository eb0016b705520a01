// Package repotest holds Roadbook's repository-wide checks: properties of the
// tree as a whole that no single module's tests can see.
//
// Check reads every Go, protobuf, TypeScript and Markdown file (not
// generated code, vendored or installed third-party files, testdata or
// dot directories) and resolves every reference to a document: the design
// citations "DOMAIN §n", "ARCHITECTURE §n" and "MCP §n" (docs/design), ADR
// numbers with or without a section (docs/design/adr), repository paths of
// Markdown files with an optional section, and Markdown links. A section is
// a numbered heading ("## 3. Pacing engine") of the cited document. It also
// refuses references to places outside the repository and a bare
// ARCHITECTURE, DOMAIN or MCP file name in code, which is ambiguous.
//
// Why: comments that cite a document are how a reader gets from code to the
// reason behind it. A citation of a section that moved, or of a document a
// clone does not have, sends the reader nowhere and says nothing is wrong.
// The test in this package makes that a failure, naming the file and line.
//
// The dependency test (deps_test.go) checks the direction of the
// dependencies between the go.work modules: each module sits on a layer and
// may require only modules on layers below it, in production and in tests.
package repotest
