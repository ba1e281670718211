package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/protolayout/protolayout/codec/grpccodec"
)

// BenchmarkRoundTrip is one request through the gateway's handler, in
// process (no HTTP connection): the JSON body decoded into a message of
// the input type, encoded by the codec and sent to the demo upstream on
// 127.0.0.1, which decodes it, answers, and the answer is decoded and
// written back as JSON. CreateOrder sends the order of TestGood (the
// upstream stores one per call); GetOrder reads one back.
func BenchmarkRoundTrip(b *testing.B) {
	files, err := loadFiles(demoDescriptors)
	if err != nil {
		b.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	up := newDemoServer(files, grpccodec.New(grpccodec.Options{}))
	go up.Serve(lis)
	b.Cleanup(up.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	gw, err := NewGateway(files, conn, Config{})
	if err != nil {
		b.Fatal(err)
	}
	call := func(b *testing.B, path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		gw.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", path, w.Code, w.Body)
		}
		return w
	}
	var created struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(call(b, create, good).Body.Bytes(), &created); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, path, body string }{
		{"CreateOrder", create, good},
		{"GetOrder", getOrd, `{"id": "` + created.ID + `"}`},
	} {
		b.Run("method="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				call(b, c.path, c.body)
			}
		})
	}
}
