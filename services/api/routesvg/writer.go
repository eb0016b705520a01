package routesvg

import (
	"bytes"
	"encoding/xml"
	"math"
	"strconv"
)

// svgWriter builds SVG text compactly: coordinates with one decimal.
type svgWriter struct{ bytes.Buffer }

func (w *svgWriter) s(v string) *svgWriter { w.WriteString(v); return w }
func (w *svgWriter) i(v int) *svgWriter    { w.WriteString(strconv.Itoa(v)); return w }
func (w *svgWriter) f(v float64) *svgWriter {
	w.WriteString(strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64))
	return w
}

// text writes third-party text escaped for XML (and so for HTML).
func (w *svgWriter) text(v string) *svgWriter {
	_ = xml.EscapeText(&w.Buffer, []byte(v))
	return w
}
