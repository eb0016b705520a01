module github.com/roadbook/roadbook/auth

go 1.26.0

replace github.com/roadbook/roadbook/proto => ../proto

require (
	connectrpc.com/connect v1.21.1
	github.com/MicahParks/jwkset v0.11.4
	github.com/MicahParks/keyfunc/v3 v3.9.2
	github.com/golang-jwt/jwt/v5 v5.3.1
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/roadbook/roadbook/proto v0.0.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/time v0.15.0
	google.golang.org/protobuf v1.36.12
)

require (
	buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go v1.36.12-20260825204119-511051f7f437.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
