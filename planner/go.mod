module github.com/roadbook/roadbook/planner

go 1.26.0

replace github.com/roadbook/roadbook/proto => ../proto

replace github.com/roadbook/roadbook/domain => ../domain

replace github.com/roadbook/roadbook/eventstore => ../eventstore

replace github.com/roadbook/roadbook/tripstore => ../tripstore

replace github.com/roadbook/roadbook/auth => ../auth

require (
	github.com/google/uuid v1.6.0
	github.com/roadbook/roadbook/auth v0.0.0
	github.com/roadbook/roadbook/domain v0.0.0
	github.com/roadbook/roadbook/eventstore v0.0.0
	github.com/roadbook/roadbook/proto v0.0.0
	github.com/roadbook/roadbook/tripstore v0.0.0
	github.com/stretchr/testify v1.12.1
)

require (
	buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go v1.36.12-20260825204119-511051f7f437.2 // indirect
	connectrpc.com/connect v1.21.1 // indirect
	github.com/MicahParks/jwkset v0.11.4 // indirect
	github.com/MicahParks/keyfunc/v3 v3.9.2 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/golang-jwt/jwt/v5 v5.3.1 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/pgx/v5 v5.13.0 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/mitchellh/mapstructure v1.5.0 // indirect
	github.com/muktihari/fit v0.26.1 // indirect
	github.com/paulmach/orb v0.12.0 // indirect
	github.com/rickar/cal/v2 v2.1.13 // indirect
	github.com/ringsaturn/tzf v1.0.2 // indirect
	github.com/ringsaturn/tzf-rel-lite v0.0.2025-b2 // indirect
	github.com/tidwall/geoindex v1.7.0 // indirect
	github.com/tidwall/geojson v1.4.5 // indirect
	github.com/tidwall/rtree v1.10.0 // indirect
	github.com/twpayne/go-polyline v1.1.1 // indirect
	go.mongodb.org/mongo-driver v1.11.4 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	golang.org/x/time v0.16.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
