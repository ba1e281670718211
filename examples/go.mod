module github.com/protolayout/protolayout/examples

go 1.26.0

require (
	github.com/bufbuild/protocompile v0.14.1
	github.com/protolayout/protolayout v0.0.0-00010101000000-000000000000
	github.com/protolayout/protolayout/codec v0.0.0-00010101000000-000000000000
	google.golang.org/grpc v1.84.0
	google.golang.org/protobuf v1.36.12
)

require (
	golang.org/x/net v0.59.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260928230214-8a89bd6388cc // indirect
)

replace (
	github.com/protolayout/protolayout => ../
	github.com/protolayout/protolayout/codec => ../codec
)
