package main

import (
	"fmt"
	"sort"

	"github.com/roadbook/roadbook/evidence/cluster"
	"github.com/roadbook/roadbook/evidence/report"
)

// queryTable lists the statements that took the most PostgreSQL time over
// the run, each with its mean time per call in either half.
func queryTable(first, second map[int64]cluster.QueryStat, top int) report.Table {
	t := report.Table{Title: "PostgreSQL statements by execution time (pg_stat_statements; mean per call in the first and the second half of the load)",
		Header: []string{"statement", "calls 1st half", "mean ms 1st", "calls 2nd half", "mean ms 2nd", "2nd / 1st"}}
	type row struct {
		id    int64
		total float64
	}
	var rows []row
	var tot1, tot2 float64
	var calls1, calls2 int64
	for id, s := range second {
		rows = append(rows, row{id, s.TotalMs + first[id].TotalMs})
	}
	for id, s := range first {
		if _, ok := second[id]; !ok {
			rows = append(rows, row{id, s.TotalMs})
		}
		tot1 += s.TotalMs
		calls1 += s.Calls
	}
	for _, s := range second {
		tot2 += s.TotalMs
		calls2 += s.Calls
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].total != rows[j].total {
			return rows[i].total > rows[j].total
		}
		return rows[i].id < rows[j].id // the same order every run
	})
	mean := func(s cluster.QueryStat) float64 {
		if s.Calls == 0 {
			return 0
		}
		return s.TotalMs / float64(s.Calls)
	}
	for i, r := range rows {
		if i == top {
			break
		}
		a, b := first[r.id], second[r.id]
		q := a.Query
		if q == "" {
			q = b.Query
		}
		if r := []rune(q); len(r) > 110 {
			q = string(r[:110]) + "…"
		}
		growth := "—"
		if mean(a) > 0 && mean(b) > 0 {
			growth = fmt.Sprintf("%.2f", mean(b)/mean(a))
		}
		t.Rows = append(t.Rows, []string{"`" + q + "`", fmt.Sprint(a.Calls), fmt.Sprintf("%.3f", mean(a)), fmt.Sprint(b.Calls), fmt.Sprintf("%.3f", mean(b)), growth})
	}
	m1, m2 := tot1/float64(max(calls1, 1)), tot2/float64(max(calls2, 1))
	all := "—"
	if m1 > 0 && m2 > 0 {
		all = fmt.Sprintf("%.2f", m2/m1)
	}
	t.Rows = append(t.Rows, []string{"all statements", fmt.Sprint(calls1), fmt.Sprintf("%.3f", m1), fmt.Sprint(calls2), fmt.Sprintf("%.3f", m2), all})
	return t
}
