package apiserver

// HasPath exposes hasPath to the refusal-path test of package
// apiserver_test.
var HasPath = hasPath

// DomainFields exposes domainFields to the same test.
var DomainFields = domainFields
