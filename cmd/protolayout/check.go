package main

import (
	"errors"
	"flag"
	"strings"

	"github.com/protolayout/protolayout/encoder"
)

var checkCommand = &command{
	name:     "check",
	summary:  "read a binary message on stdin, exit 0 if it is canonical, 1 with the first violation otherwise",
	synopsis: "(-descriptors FILE | -proto DIR) -type pkg.Msg -canonical [-strict] < in.binpb",
	doc: `Check reads the wire encoding of one message of the type -type names from
stdin and checks it with encoder.CheckCanonical: it exits 0, printing
nothing, if the bytes are the message's canonical encoding, and 1 with the
first violation (the rule, the field, its path and the byte offset) on one
line otherwise. -canonical checks strict field-number order (the Canonical
profile); with -strict, Cosmos SDK's ADR-027 for signing (the Signing
profile: no unknown fields, no maps, numeric repeated fields packed).
Extensions resolve against the schema.
`,
	setup: func(fs *flag.FlagSet) func(*env) error {
		var f checkFlags
		f.schema.register(fs)
		fs.BoolVar(&f.canonical, "canonical", false, "check that the input is the canonical encoding (required: the one check so far)")
		fs.BoolVar(&f.strict, "strict", false, "with -canonical, check ADR-027's signing profile instead of field-number order alone")
		return f.run
	},
}

type checkFlags struct {
	schema    schemaFlags
	canonical bool
	strict    bool
}

func (f *checkFlags) run(e *env) error {
	if !f.canonical {
		return usageErrorf("check: -canonical is required (see protolayout check -h)")
	}
	sc, mt, err := f.schema.loadMessage()
	if err != nil {
		return err
	}
	in, err := e.readInput()
	if err != nil {
		return err
	}
	o := encoder.CanonicalOptions{Profile: encoder.Canonical, Resolver: sc.types}
	if f.strict {
		o.Profile = encoder.Signing
	}
	if err := o.Check(in, mt.Descriptor()); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "protolayout: "))
	}
	return nil
}
