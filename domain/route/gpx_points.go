package route

// pointChunks collects points in fixed-size chunks and flattens them once at
// the end. Appending to one slice would allocate about five times the final
// size over a large file (Go grows big slices by 1.25×) and leave that
// garbage for the collector; chunks allocate exactly twice the final size,
// which is what keeps a 30 MiB file's peak heap well under 64 MiB.
type pointChunks struct {
	full [][]Point
	cur  []Point
	n    int
}

const pointChunkSize = 8192

func (c *pointChunks) add(p Point) {
	if len(c.cur) == cap(c.cur) {
		if c.cur != nil {
			c.full = append(c.full, c.cur)
		}
		size := pointChunkSize
		if c.n < pointChunkSize {
			// Small files stay small: start with a modest chunk.
			size = 256
			if c.n > 0 {
				size = min(2*c.n, pointChunkSize)
			}
		}
		c.cur = make([]Point, 0, size)
	}
	c.cur = append(c.cur, p)
	c.n++
}

func (c *pointChunks) len() int { return c.n }

// flatten returns all points in one exactly-sized slice.
func (c *pointChunks) flatten() []Point {
	if len(c.full) == 0 {
		return c.cur[:len(c.cur):len(c.cur)]
	}
	out := make([]Point, 0, c.n)
	for _, ch := range c.full {
		out = append(out, ch...)
	}
	return append(out, c.cur...)
}
