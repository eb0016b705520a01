package route

import (
	"errors"
	"testing"
)

func FuzzReadKomootPage(f *testing.F) {
	addFixtureSeeds(f)
	f.Add([]byte(`kmtBoot.setProps("{\"page\":{\"_embedded\":{\"tour\":{\"name\":\"\\u00e9\",\"_embedded\":{\"coordinates\":{\"items\":[{\"lat\":1,\"lng\":2,\"alt\":3,\"t\":0}]}}}}}}");`))
	f.Fuzz(func(t *testing.T, page []byte) {
		rt, err := ReadKomootPage(page)
		if err != nil {
			var re *ReadError
			if !errors.As(err, &re) || re.Format != "komoot" || !knownKind(re.Kind) {
				t.Fatalf("error is not a named *ReadError: %#v", err)
			}
		} else {
			if len(rt.Points) == 0 {
				t.Fatal("a route without points was accepted")
			}
			checkPoints(t, rt.Points)
		}
		c, err := ReadKomootCollection(page)
		if err != nil {
			var re *ReadError
			if !errors.As(err, &re) || !knownKind(re.Kind) {
				t.Fatalf("error is not a named *ReadError: %#v", err)
			}
			return
		}
		for _, tour := range c.Tours {
			for _, ch := range tour.ID {
				if ch < '0' || ch > '9' {
					t.Fatalf("tour id %q is not numeric", tour.ID)
				}
			}
		}
	})
}
