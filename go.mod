module github.com/protolayout/protolayout

go 1.26.0

require (
	github.com/bufbuild/protocompile v0.14.1
	google.golang.org/protobuf v1.36.12
)

require golang.org/x/sync v0.23.0 // indirect
