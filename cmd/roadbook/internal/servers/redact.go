package servers

import "net/url"

// redactURL hides a URL's password, so an error naming the NATS or
// database URL never leaks the credential into logs.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
