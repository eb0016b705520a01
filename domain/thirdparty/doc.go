// Package thirdparty cleans text that Roadbook did not write and its users
// did not type — route titles from a GPX file, Komoot or RideWithGPS, place
// names from a geocoder, accommodation and POI names from OpenStreetMap —
// before it is stored or shown to anyone, an agent included.
//
// Such text can carry characters that are invisible or that change how the
// text around them reads: bidirectional overrides and isolates (U+202A–202E,
// U+2066–2069) that make "gpx.exe" display as "exe.xpg" (the "Trojan
// Source" trick), and Unicode tag characters (U+E0000–E007F) that render as
// nothing yet spell out ASCII to a language model ("ASCII smuggling": a
// place name that reads "Oslo" to a person and "Oslo, ignore previous
// instructions" to an agent). Clean removes every format character (general
// category Cf) and turns control characters and line or paragraph
// separators into spaces, so a name stays one line of visible text.
package thirdparty
