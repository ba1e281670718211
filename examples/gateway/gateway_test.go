package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protolayout/protolayout/codec/grpccodec"
)

var update = flag.Bool("update", false, "rewrite demo.binpb from proto/demo.proto")

// TestEmbeddedDescriptors: demo.binpb is proto/demo.proto compiled, with
// its imports; -update rewrites it.
func TestEmbeddedDescriptors(t *testing.T) {
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{"proto"}})}
	compiled, err := c.Compile(context.Background(), "demo.proto")
	if err != nil {
		t.Fatal(err)
	}
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		for i := range f.Imports().Len() {
			add(f.Imports().Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	add(compiled[0])
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("demo.binpb", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(demoDescriptors, want) {
		t.Fatal("demo.binpb is stale: go test ./examples/gateway -run TestEmbeddedDescriptors -update")
	}
}

// env is an upstream gRPC server (the demo upstream) and a gateway, both
// on 127.0.0.1.
type env struct {
	url string
}

const testLimit = 4096

func start(t *testing.T) env {
	t.Helper()
	return startWith(t, Config{MaxRequestBytes: testLimit, Timeout: 10 * time.Second})
}

func startWith(t *testing.T, cfg Config) env {
	t.Helper()
	files, err := loadFiles(demoDescriptors)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up := newDemoServer(files, grpccodec.New(grpccodec.Options{}))
	go up.Serve(lis)
	t.Cleanup(up.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	gw, err := NewGateway(files, conn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	return env{url: srv.URL}
}

var client = &http.Client{Timeout: 20 * time.Second}

type reply struct {
	status int
	body   map[string]any
	raw    string
}

func (e env) do(t *testing.T, method, path, contentType string, body io.Reader) reply {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := reply{status: resp.StatusCode, raw: string(raw)}
	if resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s %s: Content-Type %q, body %s", method, path, resp.Header.Get("Content-Type"), raw)
	}
	if err := json.Unmarshal(raw, &r.body); err != nil {
		t.Fatalf("%s %s: answer is not a JSON object: %v: %s", method, path, err, raw)
	}
	return r
}

func (e env) post(t *testing.T, path, body string) reply {
	t.Helper()
	return e.do(t, http.MethodPost, path, "application/json", strings.NewReader(body))
}

const (
	create = "/demo.v1.Orders/CreateOrder"
	getOrd = "/demo.v1.Orders/GetOrder"
	good   = `{
		"customerId": "c-42",
		"items": [
			{"sku": "tea", "quantity": 2, "unitPrice": {"currency": "EUR", "units": "4", "nanos": 500000000}},
			{"sku": "mug", "quantity": 1, "unitPrice": {"currency": "EUR", "units": "12"}}
		],
		"shipping": {"name": "Ada", "lines": ["1 Main St"], "country": "GB"},
		"labels": {"channel": "web", "gift": "yes"},
		"cardToken": "tok_123",
		"note": "aGVsbG8="
	}`
)

// TestGood: a request in, the upstream's answer out, and the order read
// back through a second method.
func TestGood(t *testing.T) {
	e := start(t)
	r := e.post(t, create, good)
	if r.status != http.StatusOK {
		t.Fatalf("CreateOrder: %d %s", r.status, r.raw)
	}
	id, _ := r.body["id"].(string)
	total, _ := r.body["total"].(map[string]any)
	labels, _ := r.body["labels"].(map[string]any)
	if id == "" || r.body["customerId"] != "c-42" || r.body["status"] != "STATUS_PENDING" ||
		total["currency"] != "EUR" || total["units"] != "21" || total["nanos"] != nil ||
		labels["gift"] != "yes" || r.body["note"] != "aGVsbG8=" || r.body["created"] == nil {
		t.Fatalf("CreateOrder answer: %s", r.raw)
	}
	if _, err := time.Parse(time.RFC3339Nano, r.body["created"].(string)); err != nil {
		t.Fatalf("created: %v", err)
	}
	got := e.post(t, getOrd, `{"id": "`+id+`"}`)
	if got.status != http.StatusOK || got.raw != r.raw {
		t.Fatalf("GetOrder: %d %s, want %s", got.status, got.raw, r.raw)
	}
	// An empty body is the empty message; field names may be the proto
	// names too.
	if r := e.post(t, getOrd, ""); r.status != http.StatusNotFound || r.body["code"] != "not_found" {
		t.Fatalf("GetOrder with no body: %d %s", r.status, r.raw)
	}
	if r := e.post(t, getOrd, `{"id": "`+id+`"}`); r.status != http.StatusOK {
		t.Fatalf("GetOrder again: %d %s", r.status, r.raw)
	}
	if r := e.post(t, create, `{"customer_id": "c-1", "items": [{"sku": "x", "quantity": 1, "unit_price": {"currency": "EUR", "units": 3}}]}`); r.status != http.StatusOK {
		t.Fatalf("proto names: %d %s", r.status, r.raw)
	}
	// The index lists every method.
	idx := e.do(t, http.MethodGet, "/", "", nil)
	if idx.status != http.StatusOK || !strings.Contains(idx.raw, `"/demo.v1.Orders/WatchOrders"`) || !strings.Contains(idx.raw, `"demo.v1.CreateOrderRequest"`) {
		t.Fatalf("index: %d %s", idx.status, idx.raw)
	}
}

// TestBad: everything a client can get wrong gets a clear 4xx with a JSON
// error, and the gateway and upstream go on serving.
func TestBad(t *testing.T) {
	e := start(t)
	big := `{"customerId": "` + strings.Repeat("x", testLimit) + `"}`
	cases := []struct {
		name, method, path, contentType string
		body                            io.Reader
		status                          int
		code, message                   string
	}{
		{"bad JSON", "POST", create, "application/json", strings.NewReader(`{"customerId": `), 400, "invalid_argument", "unexpected EOF"},
		{"not an object", "POST", create, "application/json", strings.NewReader(`[1, 2]`), 400, "invalid_argument", ""},
		{"trailing garbage", "POST", create, "application/json", strings.NewReader(`{} {}`), 400, "invalid_argument", ""},
		{"unknown field", "POST", create, "application/json", strings.NewReader(`{"customerId": "c", "colour": "red"}`), 400, "invalid_argument", `unknown field "colour"`},
		{"unknown nested field", "POST", create, "application/json", strings.NewReader(`{"items": [{"sku": "a", "weight": 3}]}`), 400, "invalid_argument", `unknown field "weight"`},
		{"string as number", "POST", create, "application/json", strings.NewReader(`{"customerId": 5}`), 400, "invalid_argument", "invalid value for string field customerId"},
		{"object as list", "POST", create, "application/json", strings.NewReader(`{"items": {"sku": "a"}}`), 400, "invalid_argument", ""},
		{"negative uint32", "POST", create, "application/json", strings.NewReader(`{"items": [{"quantity": -1}]}`), 400, "invalid_argument", "quantity"},
		{"fraction for an integer", "POST", create, "application/json", strings.NewReader(`{"items": [{"quantity": 1.5}]}`), 400, "invalid_argument", "quantity"},
		{"int64 out of range", "POST", create, "application/json", strings.NewReader(`{"items": [{"unitPrice": {"units": "9223372036854775808"}}]}`), 400, "invalid_argument", "units"},
		{"bad base64", "POST", create, "application/json", strings.NewReader(`{"note": "not base64!"}`), 400, "invalid_argument", "note"},
		{"bad map value", "POST", create, "application/json", strings.NewReader(`{"labels": {"a": 1}}`), 400, "invalid_argument", ""},
		{"two oneof members", "POST", create, "application/json", strings.NewReader(`{"cardToken": "a", "voucher": "b"}`), 400, "invalid_argument", "oneof"},
		{"duplicate field", "POST", create, "application/json", strings.NewReader(`{"customerId": "a", "customerId": "b"}`), 400, "invalid_argument", "duplicate"},
		{"invalid UTF-8", "POST", create, "application/json", strings.NewReader("{\"customerId\": \"c\xff\xfe\"}"), 400, "invalid_argument", "UTF-8"},
		{"invalid UTF-8 in a key", "POST", create, "application/json", strings.NewReader("{\"customer\xffId\": \"c\"}"), 400, "invalid_argument", "UTF-8"},
		{"lone surrogate escape", "POST", create, "application/json", strings.NewReader(`{"customerId": "\ud800"}`), 400, "invalid_argument", ""},
		{"over the limit", "POST", create, "application/json", strings.NewReader(big), 413, "resource_exhausted", "4096 bytes"},
		{"over the limit, chunked", "POST", create, "application/json", io.MultiReader(strings.NewReader(big)), 413, "resource_exhausted", "4096 bytes"},
		{"not JSON", "POST", create, "text/plain", strings.NewReader(`{}`), 415, "invalid_argument", "application/json"},
		{"GET a method", "GET", create, "", nil, 405, "invalid_argument", "POST"},
		{"no such method", "POST", "/demo.v1.Orders/Cancel", "application/json", strings.NewReader(`{}`), 404, "not_found", "Cancel"},
		{"streaming method", "POST", "/demo.v1.Orders/WatchOrders", "application/json", strings.NewReader(`{}`), 501, "unimplemented", "streaming"},
		{"upstream refuses", "POST", create, "application/json", strings.NewReader(`{"items": [{"sku": "a", "quantity": 1}]}`), 400, "invalid_argument", "customer_id is required"},
		{"upstream range check", "POST", create, "application/json", strings.NewReader(`{"customerId": "c", "items": [{"quantity": 4294967295, "unitPrice": {"units": "9000000000000"}}]}`), 400, "out_of_range", "price"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(t, tc.method, tc.path, tc.contentType, tc.body)
			msg, _ := r.body["message"].(string)
			if r.status != tc.status || r.body["code"] != tc.code || !strings.Contains(msg, tc.message) {
				t.Fatalf("got %d %s, want %d %s containing %q", r.status, r.raw, tc.status, tc.code, tc.message)
			}
		})
	}
	if r := e.post(t, create, good); r.status != http.StatusOK {
		t.Fatalf("good request after the bad ones: %d %s", r.status, r.raw)
	}
}

// TestMutated sends a few hundred corrupted versions of a good request
// (bytes flipped, dropped, duplicated, truncated): every answer is a JSON
// 200 or 4xx, never a 5xx or a dropped connection.
func TestMutated(t *testing.T) {
	e := start(t)
	r := rand.New(rand.NewPCG(6, 6))
	n := 400
	if testing.Short() {
		n = 100
	}
	for i := range n {
		b := []byte(good)
		for range 1 + r.IntN(4) {
			p := r.IntN(len(b))
			switch r.IntN(4) {
			case 0:
				b[p] = byte(r.IntN(256))
			case 1:
				b = append(b[:p], b[p+1:]...)
			case 2:
				b = append(b[:p], append([]byte{b[p]}, b[p:]...)...)
			case 3:
				b = b[:p]
			}
		}
		rep := e.do(t, http.MethodPost, create, "application/json", bytes.NewReader(b))
		if rep.status != http.StatusOK && (rep.status < 400 || rep.status >= 500) {
			t.Fatalf("mutation %d: %d %s for %q", i, rep.status, rep.raw, b)
		}
	}
}

// TestUpstreamDown: with nothing at the upstream address the gateway
// answers 503.
func TestUpstreamDown(t *testing.T) {
	files, err := loadFiles(demoDescriptors)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	gw, err := NewGateway(files, conn, Config{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	r := env{url: srv.URL}.post(t, create, good)
	if r.status != http.StatusServiceUnavailable || r.body["code"] != "unavailable" {
		t.Fatalf("got %d %s", r.status, r.raw)
	}
}

// TestRun runs the command as `go run ./examples/gateway` does, with the
// embedded schema and the in-process demo upstream (only the listen
// address changed), sends a request, and stops it.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	var log bytes.Buffer
	go func() {
		errc <- run(ctx, []string{"-listen", "127.0.0.1:0"}, &log, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	r := env{url: "http://" + addr}.post(t, create, good)
	if r.status != http.StatusOK {
		t.Fatalf("CreateOrder: %d %s", r.status, r.raw)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("run: %v", err)
	}
	if !strings.Contains(log.String(), "demo upstream") {
		t.Fatalf("log: %s", log.String())
	}
}

// TestTooDeep sends requests whose metadata nests JSON objects: up to the
// depth proto.Unmarshal accepts (3,333 objects: 10,000 levels with the
// request and the innermost value) they reach the upstream, which decodes
// them; deeper ones, which protojson accepts, get 400 and never a 5xx.
func TestTooDeep(t *testing.T) {
	e := startWith(t, Config{MaxRequestBytes: 1 << 20, Timeout: 10 * time.Second})
	nested := func(n int) string {
		return strings.Repeat(`{"a":`, n) + "null" + strings.Repeat("}", n)
	}
	withMetadata := func(n int) string {
		return strings.TrimSuffix(strings.TrimSpace(good), "}") + `, "metadata": ` + nested(n) + "}"
	}
	if r := e.post(t, create, withMetadata(3333)); r.status != http.StatusOK {
		t.Fatalf("3,333 nested objects: %d %.300s", r.status, r.raw)
	}
	for _, n := range []int{3334, 4999} {
		r := e.post(t, create, withMetadata(n))
		msg, _ := r.body["message"].(string)
		if r.status != http.StatusBadRequest || r.body["code"] != "invalid_argument" || !strings.Contains(msg, "depth limit") {
			t.Fatalf("%d nested objects: %d %.300s, want 400 invalid_argument about the depth limit", n, r.status, r.raw)
		}
	}
}
