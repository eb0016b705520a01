module github.com/roadbook/roadbook/domain

go 1.26.0

require (
	github.com/google/uuid v1.6.0
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/muktihari/fit v0.26.1
	github.com/rickar/cal/v2 v2.1.13
	github.com/ringsaturn/tzf v1.0.2
	github.com/roadbook/roadbook/proto v0.0.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/text v0.44.0
	google.golang.org/protobuf v1.36.12
)

require (
	buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go v1.36.12-20260825204119-511051f7f437.2 // indirect
	github.com/mitchellh/mapstructure v1.5.0 // indirect
	github.com/paulmach/orb v0.12.0 // indirect
	github.com/ringsaturn/tzf-rel-lite v0.0.2025-b2 // indirect
	github.com/tidwall/geoindex v1.7.0 // indirect
	github.com/tidwall/geojson v1.4.5 // indirect
	github.com/tidwall/rtree v1.10.0 // indirect
	github.com/twpayne/go-polyline v1.1.1 // indirect
	go.mongodb.org/mongo-driver v1.11.4 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

replace github.com/roadbook/roadbook/proto => ../proto
