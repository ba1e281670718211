package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/protolayout/protolayout/cmd/protolayout/internal/progress"
)

// commands are the subcommands, in the order the usage lists them. Each is
// defined in a file of its own.
var commands = []*command{
	encodeCommand,
	decodeCommand,
	checkCommand,
	benchCommand,
	layoutCommand,
}

// A command is one subcommand of protolayout.
type command struct {
	name     string // as typed: protolayout NAME
	summary  string // one line for the list of commands
	synopsis string // the arguments, after "protolayout NAME "
	doc      string // what -h prints above the flags

	// setup registers the command's flags on fs and returns the function
	// that runs the command once they are parsed.
	setup func(fs *flag.FlagSet) func(e *env) error
}

// env is what a command reads and writes.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // bad input, a missing file, a failed encoding
	exitUsage = 2 // bad flags or arguments
)

func main() {
	os.Exit(run(os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}))
}

// run runs the command line args (without the program name) and returns
// the exit status. Errors are printed on e.stderr as one line.
func run(args []string, e *env) int {
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	name, args := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return help(args, e)
	}
	c := lookup(name)
	if c == nil {
		return fail(e, usageErrorf("unknown command %q (the commands are %s; see protolayout help)", name, commandNames()))
	}
	fs := c.flagSet()
	runCommand := c.setup(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.usage(fs, e.stderr)
			return exitOK
		}
		return fail(e, usageErrorf("%s: %v (see protolayout %s -h)", c.name, err, c.name))
	}
	if fs.NArg() > 0 {
		return fail(e, usageErrorf("%s: unexpected argument %q: the input is read from stdin (see protolayout %s -h)", c.name, fs.Arg(0), c.name))
	}
	return fail(e, runCommand(e))
}

// help runs "protolayout help [command]".
func help(args []string, e *env) int {
	if len(args) == 0 {
		usage(e.stdout)
		return exitOK
	}
	c := lookup(args[0])
	if c == nil || len(args) > 1 {
		return fail(e, usageErrorf("help takes one command name, one of %s", commandNames()))
	}
	fs := c.flagSet()
	c.setup(fs)
	c.usage(fs, e.stdout)
	return exitOK
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// usage prints the program's usage, with the list of commands.
func usage(w io.Writer) {
	fmt.Fprint(w, `protolayout encodes and decodes protobuf messages with protolayout's encoder,
from a schema loaded at run time, and shows the layouts it compiles.

Usage:

	protolayout <command> [flags]

Commands:

`)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "\t%s\t%s\n", c.name, c.summary)
	}
	fmt.Fprintf(tw, "\t%s\t%s\n", "help", "print this help, or a command's flags (protolayout help encode)")
	tw.Flush()
	fmt.Fprint(w, `
Every command takes the schema as -descriptors FILE (a binary FileDescriptorSet,
from protoc --include_imports -o FILE or buf build -o FILE) or -proto DIR
(.proto sources, compiled in process), and the message type as -type pkg.Msg.
Run "protolayout <command> -h" for the flags of a command.
`)
}

// flagSet returns the command's flag set, which prints nothing while it
// parses: run reports its errors in one line, and usage prints the flags.
func (c *command) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// usage prints the command's usage and flags.
func (c *command) usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "Usage: protolayout %s %s\n\n%s\nFlags:\n", c.name, c.synopsis, c.doc)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// usageError is an error in the command line rather than in the input:
// the exit status is 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// fail prints err, if not nil, as one line on stderr and returns the exit
// status it calls for.
func fail(e *env, err error) int {
	if err == nil {
		return exitOK
	}
	msg := strings.TrimSpace(err.Error())
	msg = strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
	fmt.Fprintf(e.stderr, "protolayout: %s\n", msg)
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitError
}

// readInput reads all of stdin, with a progress bar on a terminal stderr
// if that takes long.
func (e *env) readInput() ([]byte, error) {
	total := int64(-1)
	if f, ok := e.stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			total = fi.Size()
		}
	}
	bar := progress.New(e.stderr, progress.Options{Description: "reading stdin", Total: total, Bytes: true})
	b, err := io.ReadAll(bar.Reader(e.stdin))
	bar.Finish()
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	return b, nil
}

// trimProto removes the "proto: " or "protolayout: " that starts the text
// of protobuf-go's and protolayout's errors (protobuf-go varies its spacing
// on purpose), since the line printed already starts with the program's
// name.
func trimProto(err error) string {
	s := err.Error()
	for _, p := range []string{"protolayout:", "proto:"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return strings.TrimLeft(rest, " \u00a0")
		}
	}
	return s
}
