package main

import (
	"flag"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

var decodeCommand = &command{
	name:     "decode",
	summary:  "read a binary message on stdin, write it as JSON or text format on stdout",
	synopsis: "(-descriptors FILE | -proto DIR) -type pkg.Msg [-format json|text] < in.binpb > out.json",
	doc: `Decode reads the wire encoding of one message of the type -type names from
stdin and writes it on stdout, indented, in protobuf's JSON mapping (the
default) or in text format, as protoc --decode and buf convert do.
Extensions and google.protobuf.Any resolve against the schema.
`,
	setup: func(fs *flag.FlagSet) func(*env) error {
		var f decodeFlags
		f.schema.register(fs)
		fs.StringVar(&f.format, "format", "json", "the output's `format`: json (protobuf's JSON mapping) or text (text format)")
		fs.BoolVar(&f.allowPartial, "allow-partial", false, "decode even if required fields are missing")
		fs.BoolVar(&f.emitDefaults, "emit-defaults", false, "with -format json, write fields that hold their default value too")
		return f.run
	},
}

type decodeFlags struct {
	schema       schemaFlags
	format       string
	allowPartial bool
	emitDefaults bool
}

func (f *decodeFlags) run(e *env) error {
	if err := checkFormat(f.format, "json", "text"); err != nil {
		return err
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
	err = proto.UnmarshalOptions{AllowPartial: true, Resolver: sc.types}.Unmarshal(in, m)
	if err != nil {
		return fmt.Errorf("parsing %s from binary: %s", md.FullName(), trimProto(err))
	}
	if !f.allowPartial {
		if err := proto.CheckInitialized(m); err != nil {
			return fmt.Errorf("parsing %s from binary: %s (-allow-partial decodes it all the same)", md.FullName(), trimProto(err))
		}
	}
	var out []byte
	switch f.format {
	case "json":
		out, err = protojson.MarshalOptions{Multiline: true, Indent: "  ", AllowPartial: true, EmitDefaultValues: f.emitDefaults, Resolver: sc.types}.Marshal(m)
	case "text":
		out, err = prototext.MarshalOptions{Multiline: true, Indent: "  ", AllowPartial: true, Resolver: sc.types}.Marshal(m)
	}
	if err != nil {
		return fmt.Errorf("writing %s as %s: %s", md.FullName(), formatName(f.format), trimProto(err))
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if _, err := e.stdout.Write(out); err != nil {
		return fmt.Errorf("writing stdout: %w", err)
	}
	return nil
}
