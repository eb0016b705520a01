package sharepage

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"html/template"
	"strings"
)

// templateFiles are the browser pages, rendered server-side with
// html/template (no build step; every value is escaped for its context).
//
//go:embed templates/*.html
var templateFiles embed.FS

var pageTemplates = template.Must(template.ParseFS(templateFiles, "templates/*.html"))

// pageCSP is the Content-Security-Policy of the HTML pages: nothing loads
// from anywhere but the page itself, scripts only from this origin (the
// pages have none; no inline script), and the one inline <style> block of
// each template is allowed by its hash rather than by 'unsafe-inline'.
var pageCSP = "default-src 'none'; script-src 'self'; style-src " + styleHashes("share.html", "message.html") +
	"; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// svgCSP is the policy of a served SVG document (no script, no loads).
const svgCSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'"

// styleHashes are the CSP hash sources of the <style> blocks of the named
// templates, computed from the embedded files so an edit to the CSS can
// never be forgotten in the header.
func styleHashes(names ...string) string {
	var out []string
	for _, name := range names {
		b, err := templateFiles.ReadFile("templates/" + name)
		if err != nil {
			panic(err)
		}
		_, rest, ok := strings.Cut(string(b), "<style>")
		css, _, ok2 := strings.Cut(rest, "</style>")
		if !ok || !ok2 {
			panic("sharepage: template " + name + " has no <style> block")
		}
		sum := sha256.Sum256([]byte(css))
		out = append(out, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	return strings.Join(out, " ")
}
