package main

import (
	"errors"
	"flag"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/protolayout/protolayout/encoder"
)

var encodeCommand = &command{
	name:     "encode",
	summary:  "read a message as JSON or text format on stdin, write it in binary on stdout",
	synopsis: "(-descriptors FILE | -proto DIR) -type pkg.Msg [-format json|text] [-deterministic | -canonical [-strict]] < in.json > out.binpb",
	doc: `Encode reads one message of the type -type names from stdin, in protobuf's
JSON mapping (the default) or in text format, and writes its wire encoding,
made by protolayout's encoder, on stdout, as protoc --encode and buf convert do.
Extensions and google.protobuf.Any resolve against the schema.

-canonical writes the message's canonical encoding, for bytes that are
signed or hashed: every field in strictly ascending field number (oneof
members and extensions too), map entries sorted by key, unknown fields
last; for a message without maps these are the bytes protoc --encode
writes. With -strict, Cosmos SDK's ADR-027 for signing: numeric repeated
fields packed, and unknown fields and maps refused. protolayout check
-canonical accepts what it writes.
`,
	setup: func(fs *flag.FlagSet) func(*env) error {
		var f encodeFlags
		f.schema.register(fs)
		fs.StringVar(&f.format, "format", "json", "the input's `format`: json (protobuf's JSON mapping) or text (text format)")
		fs.BoolVar(&f.deterministic, "deterministic", false, "write map entries sorted by key, so the same input always gives the same bytes")
		fs.BoolVar(&f.canonical, "canonical", false, "write the canonical encoding: fields in field-number order, map entries sorted (see protolayout check)")
		fs.BoolVar(&f.strict, "strict", false, "with -canonical, follow ADR-027's signing profile: numeric repeated fields packed, no unknown fields, no maps")
		fs.BoolVar(&f.allowPartial, "allow-partial", false, "encode even if required fields are missing")
		fs.BoolVar(&f.discardUnknown, "discard-unknown", false, "ignore fields of the input that the schema does not know, instead of failing")
		return f.run
	},
}

type encodeFlags struct {
	schema         schemaFlags
	format         string
	deterministic  bool
	canonical      bool
	strict         bool
	allowPartial   bool
	discardUnknown bool
}

func (f *encodeFlags) run(e *env) error {
	if err := checkFormat(f.format, "json", "text"); err != nil {
		return err
	}
	if f.strict && !f.canonical {
		return usageErrorf("encode: -strict goes with -canonical")
	}
	sc, mt, err := f.schema.loadMessage()
	if err != nil {
		return err
	}
	md := mt.Descriptor()
	in, err := e.readInput()
	if err != nil {
		return err
	}
	m := mt.New().Interface()
	// Required fields are checked by the encoder below, whose error
	// gives the path of the field missing.
	switch f.format {
	case "json":
		err = protojson.UnmarshalOptions{AllowPartial: true, DiscardUnknown: f.discardUnknown, Resolver: sc.types}.Unmarshal(in, m)
	case "text":
		err = prototext.UnmarshalOptions{AllowPartial: true, DiscardUnknown: f.discardUnknown, Resolver: sc.types}.Unmarshal(in, m)
	}
	if err != nil {
		return fmt.Errorf("parsing %s from %s: %s", md.FullName(), formatName(f.format), trimProto(err))
	}
	o := encoder.MarshalOptions{AllowPartial: f.allowPartial, Deterministic: f.deterministic}
	switch {
	case f.strict:
		o.Canonical = encoder.Signing
	case f.canonical:
		o.Canonical = encoder.Canonical
	}
	b, err := o.Marshal(m)
	if errors.Is(err, encoder.ErrRequiredNotSet) {
		return fmt.Errorf("encoding %s: %s (-allow-partial encodes it all the same)", md.FullName(), trimProto(err))
	}
	if err != nil {
		return fmt.Errorf("encoding %s: %s", md.FullName(), trimProto(err))
	}
	if _, err := e.stdout.Write(b); err != nil {
		return fmt.Errorf("writing stdout: %w", err)
	}
	return nil
}

// checkFormat returns a usageError unless format is one of formats.
func checkFormat(format string, formats ...string) error {
	for _, f := range formats {
		if format == f {
			return nil
		}
	}
	return usageErrorf("-format %s: want json or text", format)
}

// formatName names a -format value in messages.
func formatName(format string) string {
	if format == "text" {
		return "text format"
	}
	return "JSON"
}
