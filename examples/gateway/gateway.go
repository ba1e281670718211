package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/protolayout/protolayout/codec/grpccodec"
	"github.com/protolayout/protolayout/dynamic"
	"github.com/protolayout/protolayout/encoder"
)

// Config configures a Gateway.
type Config struct {
	// MaxRequestBytes is the largest request body accepted; larger ones
	// get 413. 0 means 1 MiB.
	MaxRequestBytes int64
	// Timeout bounds each upstream call. 0 means 10 seconds.
	Timeout time.Duration
}

// Gateway serves HTTP/JSON for the unary methods of every service in a set
// of descriptors and forwards each call to an upstream gRPC server.
//
// A request is POST /<package.Service>/<Method> with a JSON body in the
// proto3 JSON mapping of the method's input type. The body is decoded by
// protojson into a dynamic.Message (package
// github.com/protolayout/protolayout/dynamic) of that type; the gRPC codec
// encodes it with protolayout (no generated code anywhere: the types come
// from the descriptors); the response is decoded by the codec
// (proto.Unmarshal, through the dynamic.Message's own Unmarshal) into a
// dynamic.Message and written back as JSON. Errors are JSON
// objects {"code": "...", "message": "..."} with the gRPC code's name in
// snake case and an HTTP status: 4xx for what the client sent, the
// upstream's status mapped otherwise. GET / lists the methods.
type Gateway struct {
	conn      grpc.ClientConnInterface
	codec     *grpccodec.Codec
	limits    encoder.MarshalOptions                   // the codec's encoding options
	encoders  sync.Pool                                // of *encoder.Encoder, for checking requests
	methods   map[string]protoreflect.MethodDescriptor // by gRPC path
	index     []byte                                   // GET / answer
	unmarshal protojson.UnmarshalOptions
	marshal   protojson.MarshalOptions
	maxBody   int64
	timeout   time.Duration
}

// NewGateway returns a Gateway for the services in files that calls conn.
func NewGateway(files *protoregistry.Files, conn grpc.ClientConnInterface, cfg Config) (*Gateway, error) {
	limits := encoder.MarshalOptions{MaxSize: 64 << 20}
	g := &Gateway{
		conn: conn,
		// The encoder's default depth limit is proto.Unmarshal's, so
		// that the upstream can decode whatever is sent (requests that
		// protojson accepts but nest deeper are refused with 400, see
		// check); the size limit is far above any request this gateway
		// accepts.
		codec:   grpccodec.New(grpccodec.Options{Marshal: limits}),
		limits:  limits,
		methods: map[string]protoreflect.MethodDescriptor{},
		maxBody: cfg.MaxRequestBytes,
		timeout: cfg.Timeout,
	}
	if g.maxBody <= 0 {
		g.maxBody = 1 << 20
	}
	if g.timeout <= 0 {
		g.timeout = 10 * time.Second
	}
	// Any and extensions in the JSON resolve to dynamic.Message types.
	types := dynamic.NewTypes(files)
	g.unmarshal = protojson.UnmarshalOptions{Resolver: types}
	g.marshal = protojson.MarshalOptions{Resolver: types}

	type entry struct {
		Path      string `json:"path"`
		Input     string `json:"input"`
		Output    string `json:"output"`
		Streaming bool   `json:"streaming,omitempty"`
	}
	var list []entry
	files.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		services := f.Services()
		for i := range services.Len() {
			methods := services.Get(i).Methods()
			for j := range methods.Len() {
				m := methods.Get(j)
				path := "/" + string(m.Parent().FullName()) + "/" + string(m.Name())
				g.methods[path] = m
				list = append(list, entry{path, string(m.Input().FullName()), string(m.Output().FullName()),
					m.IsStreamingClient() || m.IsStreamingServer()})
			}
		}
		return true
	})
	if len(g.methods) == 0 {
		return nil, errors.New("gateway: the descriptors define no service methods")
	}
	slices.SortFunc(list, func(a, b entry) int { return strings.Compare(a.Path, b.Path) })
	index, err := json.MarshalIndent(map[string]any{"methods": list}, "", "  ")
	if err != nil {
		return nil, err
	}
	g.index = append(index, '\n')
	return g, nil
}

// ServeHTTP serves one request.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(g.index)
		return
	}
	md, ok := g.methods[r.URL.Path]
	if !ok {
		writeError(w, http.StatusNotFound, codes.NotFound, "no method "+strconv.Quote(r.URL.Path)+" (GET / lists them)")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, codes.InvalidArgument, "use POST")
		return
	}
	if md.IsStreamingClient() || md.IsStreamingServer() {
		writeError(w, http.StatusNotImplemented, codes.Unimplemented, "streaming methods are not served over HTTP/JSON")
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, codes.InvalidArgument, "Content-Type must be application/json")
			return
		}
	}

	body, err := g.readBody(w, r)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, codes.ResourceExhausted,
				fmt.Sprintf("request body larger than %d bytes", g.maxBody))
			return
		}
		writeError(w, http.StatusBadRequest, codes.InvalidArgument, "reading the request: "+err.Error())
		return
	}

	// JSON to a dynamic.Message of the input type (see docs/design.md for
	// why not the Writer): protojson checks the syntax, field names,
	// types, UTF-8 and duplicates.
	req := dynamic.NewMessage(md.Input())
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := g.unmarshal.Unmarshal(body, req); err != nil {
		writeError(w, http.StatusBadRequest, codes.InvalidArgument, "request body: "+err.Error())
		return
	}
	// What protojson accepts may still nest deeper than proto.Unmarshal
	// allows (a JSON object is three protobuf levels: a Struct, a map
	// entry, a Value), and the codec would refuse to encode it, which
	// gRPC reports as an internal error. Check the encoder's limits here,
	// so that the client hears it is its request.
	if err := g.check(req); err != nil {
		writeError(w, http.StatusBadRequest, codes.InvalidArgument, "request body: "+err.Error())
		return
	}

	// The codec encodes req with protolayout on the way out, and decodes
	// the response with proto.Unmarshal, which calls the dynamic.Message's
	// own Unmarshal.
	ctx, cancel := context.WithTimeout(r.Context(), g.timeout)
	defer cancel()
	resp := dynamic.NewMessage(md.Output())
	path := r.URL.Path
	if err := g.conn.Invoke(ctx, path, req, resp, grpc.ForceCodecV2(g.codec)); err != nil {
		st := status.Convert(err)
		writeError(w, httpStatus(st.Code()), st.Code(), st.Message())
		return
	}
	out, err := g.marshal.Marshal(resp)
	if err != nil {
		writeError(w, http.StatusBadGateway, codes.Internal, "upstream response: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(out, '\n'))
}

// check runs the size pass of the codec's encoder over req: the depth
// limit (as proto.Unmarshal counts it), cycles and the size limit.
func (g *Gateway) check(req proto.Message) error {
	e, _ := g.encoders.Get().(*encoder.Encoder)
	if e == nil {
		e = encoder.NewEncoder(g.limits)
	}
	_, err := e.Size(req)
	g.encoders.Put(e)
	return err
}

// readBody reads the body up to the limit; a declared length above it is
// refused before anything is read.
func (g *Gateway) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > g.maxBody {
		return nil, &http.MaxBytesError{Limit: g.maxBody}
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, g.maxBody))
}

// writeError writes {"code": ..., "message": ...} with an HTTP status.
func writeError(w http.ResponseWriter, httpCode int, code codes.Code, msg string) {
	b, _ := json.Marshal(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{codeName(code), msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(httpCode)
	w.Write(append(b, '\n'))
}

// codeName is the gRPC code's name in snake case ("invalid_argument"), as
// the Connect protocol writes it.
func codeName(c codes.Code) string {
	s := c.String()
	var b strings.Builder
	for i, r := range s {
		if 'A' <= r && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// httpStatus maps an upstream gRPC code to an HTTP status, as
// grpc-gateway and the Connect protocol do.
func httpStatus(c codes.Code) int {
	switch c {
	case codes.OK:
		return http.StatusOK
	case codes.Canceled:
		return 499 // client closed request
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
		return http.StatusBadRequest
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout
	case codes.NotFound:
		return http.StatusNotFound
	case codes.AlreadyExists, codes.Aborted:
		return http.StatusConflict
	case codes.PermissionDenied:
		return http.StatusForbidden
	case codes.Unauthenticated:
		return http.StatusUnauthorized
	case codes.ResourceExhausted:
		return http.StatusTooManyRequests
	case codes.Unimplemented:
		return http.StatusNotImplemented
	case codes.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
