package gazetteer

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

//go:embed data/places.tsv.gz
var placesGz []byte

// entry is one gazetteer place, compact (135k of them stay resident).
type entry struct {
	name, country, admin, feature string
	population                    uint32
	lat, lon                      float64
}

// parse reads the embedded TSV (see gen/main.go for the columns).
func parse(gz []byte) ([]entry, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("gazetteer: data is not gzip: %w", err)
	}
	defer zr.Close()
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	entries := make([]entry, 0, 140_000)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("gazetteer: line %d has %d fields, want 7", line, len(f))
		}
		pop, err1 := strconv.ParseUint(f[4], 10, 32)
		lat, err2 := strconv.ParseInt(f[5], 10, 32)
		lon, err3 := strconv.ParseInt(f[6], 10, 32)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("gazetteer: line %d has a malformed number", line)
		}
		entries = append(entries, entry{
			name: f[0], country: f[1], admin: f[2], feature: f[3],
			population: uint32(pop), lat: float64(lat) / 1e5, lon: float64(lon) / 1e5,
		})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("gazetteer: reading data: %w", err)
	}
	return entries, nil
}

var loadOnce = sync.OnceValues(func() (*Gazetteer, error) {
	entries, err := parse(placesGz)
	if err != nil {
		return nil, err
	}
	return build(entries), nil
})

// Load returns the embedded gazetteer, parsed and indexed on first use (about
// a quarter of a second) and shared afterwards: it is read-only, so every
// caller in the process can use the same one.
func Load() (*Gazetteer, error) { return loadOnce() }
