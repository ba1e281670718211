// Package lifetime holds the schema-reload tests of the whole stack: a
// process that loads a schema over and over (as a proxy does on every
// config push), encodes with every part of protolayout, and drops each
// load, must keep a flat heap. It has no code of its own; it lives in the
// codec module because the gRPC codec is one of the parts exercised.
package lifetime
