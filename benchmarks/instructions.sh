#!/bin/sh
# Counts the instructions one operation of a benchmark executes, with
# cachegrind: a measure that, unlike time, does not move with the load of a
# shared machine (two runs agree to about 0.1%), so a change worth 2% shows.
# Workloads that look up or iterate Go maps (the descriptor set, scalar,
# collections) move by 1% to 3% between runs: each run is a process with
# its own hash seed, which changes probe lengths; compare those with
# repeated runs, or with one long run's totals.
#
#   sh benchmarks/instructions.sh [-n N] [-o test-binary] REGEX...
#
# Each REGEX selects one sub-benchmark of BenchmarkMarshal, such as
# 'Marshal/otlp/protolayout/dynamicpb-reuse$' or 'Marshal/writer/handwritten$'.
# go test matches each /-separated level on its own and unanchored, so a
# level that is a prefix of another needs anchors: 'Marshal/scalar/proto/
# generated$' runs proto/generated and protolayout/generated both (and
# reports their sum); write 'Marshal/scalar/^proto$/generated$'.
# It runs under cachegrind twice with the garbage collector off, for N and
# 2N iterations (N defaults to 30: enough for the workloads of the report;
# use thousands for the small ones), and prints the difference per
# iteration, so set-up (building and checking every workload) cancels out.
# Only the encoding's own code is counted: protolayout's packages, protobuf,
# protowire, easyproto, unicode/utf8, copies, map and hashing helpers of the
# runtime; the scheduler and the collector, whose share depends on timing
# under valgrind, are left out. Allocation is left out too, so compare
# contestants that allocate nothing per call (protolayout/dynamicpb-reuse, dynamic/encoder-reuse, the writer
# family, the floor), or treat the others' counts as a lower bound.
#
# Needs valgrind (Debian: apt-get install valgrind). -o reuses a test binary
# built with `go test -c ./benchmarks` (from the repository root), to
# compare two builds.
set -eu

n=30
bin=
while getopts n:o: opt; do
	case $opt in
	n) n=$OPTARG ;;
	o) bin=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
	echo "usage: $0 [-n N] [-o test-binary] REGEX..." >&2
	exit 2
fi
command -v valgrind >/dev/null || {
	echo "$0: valgrind not found (Debian: apt-get install valgrind)" >&2
	exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then
	bin=$tmp/benchmarks.test
	# From the script's directory, the benchmarks module (a relative
	# directory such as benchmarks, as "dirname $0" gives, would be read as
	# an import path).
	(cd "$(dirname "$0")" && go test -c -o "$bin" .)
fi

# count ITERATIONS REGEX: the instructions of the counted functions.
count() {
	GOGC=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/out" \
		"$bin" -test.run '^$' -test.bench "$2" -test.benchtime "$1x" >/dev/null 2>&1
	cg_annotate --threshold=0 "$tmp/out" 2>/dev/null |
		grep -E 'protolayout|google.golang.org/protobuf|easyproto|unicode/utf8|memmove|memclr|internal/runtime/maps|runtime/map.go|chacha8|runtime/rand.go|memhash|aeshash|ifaceeq|efaceeq|cmpbody|memeqbody|slices' |
		grep -v 'PROGRAM TOTALS' |
		awk '{ gsub(",", "", $1); s += $1 } END { printf "%.0f\n", s }'
}

for re in "$@"; do
	a=$(count "$n" "$re")
	b=$(count $((2 * n)) "$re")
	printf '%-55s %12d instructions/op\n' "$re" $(((b - a) / n))
done
