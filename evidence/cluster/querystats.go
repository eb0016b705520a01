package cluster

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// QueryStat is one statement's cumulative cost in the private cluster, from
// pg_stat_statements (which the cluster preloads): how many times it ran
// and how long it executed in all, in PostgreSQL's own accounting.
type QueryStat struct {
	// ID is pg_stat_statements' queryid.
	ID int64
	// Query is the normalized statement text, whitespace folded.
	Query string
	// Calls and TotalMs are cumulative since the cluster started.
	Calls   int64
	TotalMs float64
	// Rows is the rows returned or affected in all.
	Rows int64
}

// QueryStats reads every statement's cumulative cost. Two readings apart
// give the cost of what ran between them (Since).
func (c *Cluster) QueryStats(ctx context.Context) (map[int64]QueryStat, error) {
	conn, err := pgx.Connect(ctx, c.DatabaseURL)
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Close(ctx) }()
	rows, err := conn.Query(ctx, `SELECT queryid, query, calls, total_exec_time, rows FROM pg_stat_statements WHERE queryid IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("pg_stat_statements: %w", err)
	}
	out := map[int64]QueryStat{}
	for rows.Next() {
		var q QueryStat
		if err := rows.Scan(&q.ID, &q.Query, &q.Calls, &q.TotalMs, &q.Rows); err != nil {
			return nil, err
		}
		q.Query = strings.Join(strings.Fields(q.Query), " ")
		// The same normalized text can appear under several users or
		// databases: add them up.
		if prev, ok := out[q.ID]; ok {
			q.Calls, q.TotalMs, q.Rows = q.Calls+prev.Calls, q.TotalMs+prev.TotalMs, q.Rows+prev.Rows
		}
		out[q.ID] = q
	}
	return out, rows.Err()
}

// Since is the cost of what ran between an earlier reading and this one.
func Since(earlier, later map[int64]QueryStat) map[int64]QueryStat {
	out := map[int64]QueryStat{}
	for id, l := range later {
		e := earlier[id]
		if d := l.Calls - e.Calls; d > 0 {
			out[id] = QueryStat{ID: id, Query: l.Query, Calls: d, TotalMs: l.TotalMs - e.TotalMs, Rows: l.Rows - e.Rows}
		}
	}
	return out
}
