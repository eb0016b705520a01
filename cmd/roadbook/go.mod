module github.com/roadbook/roadbook/cmd/roadbook

go 1.26.0

require github.com/roadbook/roadbook/proto v0.0.0

replace github.com/roadbook/roadbook/proto => ../../proto
