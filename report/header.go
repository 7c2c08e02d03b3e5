package report

import (
	"fmt"
	"io"

	"github.com/mcpcheck/mcpcheck/result"
)

// writeHeader is what the text report says first, once: the configuration
// file read and the run's notes.
func writeHeader(w io.Writer, o Options, r *result.Result) {
	if o.Quiet {
		return // only failing findings and the verdict
	}
	if o.ConfigFile != "" {
		fmt.Fprintf(w, "config: %s\n", printable(o.ConfigFile))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", printable(n))
	}
}
