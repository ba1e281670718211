module github.com/protolayout/protolayout/cmd/protolayout

go 1.26.0

replace github.com/protolayout/protolayout => ../..

require (
	github.com/bufbuild/protocompile v0.14.1
	github.com/protolayout/protolayout v0.0.0-00010101000000-000000000000
	github.com/schollz/progressbar/v3 v3.19.1
	golang.org/x/term v0.48.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
