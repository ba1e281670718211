module github.com/protolayout/protolayout/internal/benchreport

go 1.26.0

replace github.com/protolayout/protolayout => ../..

require (
	github.com/dustin/go-humanize v1.1.0
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/mattn/go-isatty v0.0.24
	github.com/protolayout/protolayout v0.0.0-00010101000000-000000000000
	github.com/schollz/progressbar/v3 v3.19.1
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/bufbuild/protocompile v0.14.1 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.46.0 // indirect
	golang.org/x/term v0.44.0 // indirect
)
