package export

import (
	"fmt"
	"strconv"
	"strings"
)

// ResupplyLine is one kind of resupply on a day as a reader sees it, in the
// text roadbook and on the share page alike: its label ("Water"), the first
// points in route order ("km 12.3 Fontene (open when you pass)") and how
// many more the day has.
type ResupplyLine struct {
	Kind  ResupplyKind
	Label string
	Items []string
	More  int
}

// Text is the line's points: "km 12.3 Fontene · km 40.1 and 4 more".
func (l ResupplyLine) Text() string {
	s := strings.Join(l.Items, " · ")
	if l.More > 0 {
		s += fmt.Sprintf(" and %d more", l.More)
	}
	return s
}

// ResupplyLines lists a day's points by kind — water, food shops, cafés and
// restaurants — each in route order, at most perKind of a kind; the rest,
// and omitted[kind] points the analysis found but did not keep, are
// counted. A kind with no point listed has no line. Names are third-party
// text, cleaned to one line.
func ResupplyLines(points []Resupply, omitted map[ResupplyKind]int, perKind int) []ResupplyLine {
	var out []ResupplyLine
	for _, k := range []ResupplyLine{
		{Kind: ResupplyWater, Label: "Water"}, {Kind: ResupplyShop, Label: "Food shops"}, {Kind: ResupplyFood, Label: "Cafés and restaurants"},
	} {
		n := omitted[k.Kind]
		for _, r := range points {
			if r.Kind != k.Kind {
				continue
			}
			n++
			if len(k.Items) == perKind {
				continue
			}
			item := "km " + strconv.FormatFloat(r.AtM/1000, 'f', 1, 64)
			if name := cleanText(r.Name); name != "" {
				item += " " + name
			}
			if p := passage(r.Open); p != "" {
				item += " (" + p + ")"
			}
			k.Items = append(k.Items, item)
		}
		if len(k.Items) == 0 {
			continue
		}
		k.More = n - len(k.Items)
		out = append(out, k)
	}
	return out
}
