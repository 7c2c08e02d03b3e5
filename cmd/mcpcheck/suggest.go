package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpcheck/mcpcheck/checks"
	"github.com/mcpcheck/mcpcheck/internal/suggest"
)

// commands are mcpcheck's commands, for the dispatcher, help and did-you-mean.
var commands = []string{"check", "baseline", "suppress", "config", "stats", "diff", "rules", "explain", "version", "help"}

// flagError is a flag set's parse error as a usage error for command cmd:
// an unknown flag says which one was probably meant.
func flagError(cmd string, fs *pflag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		var names []string
		fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if c := suggest.Closest(name, names); c != "" {
			msg = fmt.Sprintf("unknown flag --%s (did you mean --%s?)", name, c)
		}
	}
	if cmd == "check" {
		return usagef("%s; run 'mcpcheck --help' for usage", msg)
	}
	return usagef("%s: %s; run 'mcpcheck %s --help' for usage", cmd, msg, cmd)
}

// misspeltCommand turns the failure of a check whose first argument is
// no capture but close to a command ("chek FILE") into a did-you-mean. A
// word that names a file, or that is near no command, keeps its error: a
// capture is never taken for a command.
func misspeltCommand(args []string, err error) error {
	if err == nil || len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return err
	}
	if _, statErr := os.Stat(args[0]); statErr == nil {
		return err
	}
	c := suggest.Closest(args[0], commands)
	if c == "" {
		return err
	}
	return usagef("unknown command %q (did you mean %s?); it is no capture either: %v", args[0], c, err)
}

// ruleByID finds a rule by id, ignoring case; an unknown id is an error
// for the named flag or command that names the closest id.
func ruleByID(rules []*checks.Rule, what, id string) (*checks.Rule, error) {
	if r := checks.Lookup(rules, strings.TrimSpace(id)); r != nil {
		return r, nil
	}
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	return nil, usagef("%s: unknown rule %q%s; run 'mcpcheck rules' for the list", what, id, suggest.DidYouMean(id, ids))
}

// oneOf checks a flag's value against its choices (ignoring case) and
// says which was meant.
func oneOf(flag, value string, choices ...string) error {
	for _, c := range choices {
		if strings.EqualFold(c, value) {
			return nil
		}
	}
	return usagef("%s: %q is not %s%s", flag, value, orList(choices), suggest.DidYouMean(value, choices))
}

// orList is "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// args0 is the first argument, or "".
func args0(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// runHelp prints the usage with the check flags, or one command's help.
func (c *command) runHelp(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usageText+checkFlags(&checkOptions{}).FlagUsages())
		return exitPassed, nil
	case len(args) > 1:
		return exitUsage, usagef("help takes one command: %s", strings.Join(commands, ", "))
	case args[0] == "help" || args[0] == "--help" || args[0] == "-h":
		fmt.Fprint(stdout, "Usage:\n  mcpcheck help [COMMAND]\n\nShows the usage and check flags, or one command's help.\n")
		return exitPassed, nil
	case !slices.Contains(commands, args[0]):
		return exitUsage, usagef("help: unknown command %q%s; the commands are %s", args[0], suggest.DidYouMean(args[0], commands), strings.Join(commands, ", "))
	}
	return c.run([]string{args[0], "--help"}, stdin, stdout, stderr), nil
}

const versionUsage = `Usage:
  mcpcheck version

Prints mcpcheck's version, commit and build date.

Flags:
`
