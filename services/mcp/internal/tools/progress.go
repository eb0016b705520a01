package tools

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressReport is one notifications/progress: how many of the
// computations a result knows of are done, and a one-line summary.
type progressReport struct {
	done, total int
	message     string
}

// tripProgress summarises a trip's four computations as a result reports
// them (route, stages, labels, analysis): done counts those in state done;
// failed or unavailable ones are not done, and the message says so.
func tripProgress(p Progress) progressReport {
	parts := []struct {
		name string
		part Part
	}{{"route", p.Route}, {"stages", p.Stages}, {"labels", p.Labels}, {"analysis", p.Analysis}}
	r := progressReport{total: len(parts)}
	words := make([]string, 0, len(parts))
	for _, x := range parts {
		if x.part.State == "done" {
			r.done++
		}
		w := x.name + " " + x.part.State
		if x.part.State == "running" && x.part.Total > 0 {
			w += fmt.Sprintf(" %d/%d", x.part.Done, x.part.Total)
		}
		words = append(words, w)
	}
	r.message = strings.Join(words, ", ")
	return r
}

// notifyProgress sends r as the one progress notification of this call when
// the client supplied a progress token, and never otherwise. MCP §5
// ("Asynchronous work") makes it a courtesy: no tool waits and nothing
// depends on it — the agent's loop through next is the progress bar — so a
// notification that cannot be delivered is logged and the call still
// answers.
func (c *call) notifyProgress(ctx context.Context, r progressReport) {
	if c.req == nil || c.req.Params == nil || c.req.Session == nil {
		return
	}
	token := c.req.Params.GetProgressToken()
	if token == nil {
		return
	}
	err := c.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: token, Progress: float64(r.done), Total: float64(r.total), Message: r.message,
	})
	if err != nil && c.env.Logger != nil {
		c.env.Logger.LogAttrs(ctx, slog.LevelDebug, "progress notification not sent",
			slog.String("tool", c.tool.Name), slog.Any("error", err))
	}
}

// createdProgress is where a trip create_trip answers "computing" stands:
// an uploaded GPX document was parsed in the call (the API refuses one it
// cannot read), so its route is done; a link's route is still to import.
// The day split, labels and analysis follow.
func createdProgress(uploaded bool) progressReport {
	p := Progress{Route: Part{State: "pending"}, Stages: Part{State: "pending"}, Labels: Part{State: "pending"}, Analysis: Part{State: "pending"}}
	if uploaded {
		p.Route.State = "done"
	}
	return tripProgress(p)
}

// analysisStarted is what analyze_trip knows when it answers: the one
// computation it asked for is requested and not done.
var analysisStarted = progressReport{done: 0, total: 1, message: "analysis pending"}
