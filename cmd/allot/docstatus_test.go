package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sim/allot/scenarios"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// notBuilt are the phrases by which a document says a command, flag or key
// does not exist in this build. "will" alone is not among them: a
// document may say what a built command will do with a file.
var notBuilt = regexp.MustCompile(`(?i)not yet implemented|not implemented|not implement\b|implemented yet|not (yet )?built|once built|once (it|they) exists?|will be (built|implemented|added)|\bplanned\b|coming soon`)

// A document must not call a command, flag or key "not yet implemented"
// (or "once built", "planned", ...) when `allot --help` lists it or the
// loader accepts it. Each clause (a sentence, or a part between
// semicolons; a line in a code block) holding such a phrase is checked for
// what it names: `backticked` words, and in a code block the line's key.
func TestDocumentsCallNothingBuiltNotYetImplemented(t *testing.T) {
	root := filepath.Join("..", "..")
	commands, flags := commandSurface(newRoot(io.Discard, io.Discard))
	for _, rel := range documentedFiles(t, root) {
		keys := scenarios.Keys()
		if rel == filepath.Join("docs", "snapshot.md") {
			keys = scenarios.SnapshotKeys()
		}
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range notBuiltClauses(string(data)) {
			for _, name := range c.names {
				if what := builtAs(name, commands, flags, keys); what != "" {
					t.Errorf("%s:%d: calls %s %q %q, but this build has it; say what it does", rel, c.line, what, name, c.phrase)
				}
			}
		}
	}
}

// TestTheNotBuiltCheckFindsWhatItLooksFor holds the check to examples: it
// must catch a built command, flag or key so called, and leave alone
// what the build lacks.
func TestTheNotBuiltCheckFindsWhatItLooksFor(t *testing.T) {
	commands, flags := commandSurface(newRoot(io.Discard, io.Discard))
	keys := scenarios.Keys()
	doc := "It is what `allot tune` writes (neither is implemented yet). Fine; `allot fly` is planned.\n" +
		"`--reference` (a flag that this build does not implement yet).\n\n" +
		"```yaml\n  placement_timeout: 5m   # NOT YET IMPLEMENTED\n  # token_file: not yet implemented\n  dreams: 1   # NOT YET IMPLEMENTED\n```\n"
	var found []string
	for _, c := range notBuiltClauses(doc) {
		for _, name := range c.names {
			if what := builtAs(name, commands, flags, keys); what != "" {
				found = append(found, what+" "+name)
			}
		}
	}
	want := []string{"command allot tune", "flag --reference", "key placement_timeout", "key token_file"}
	if !slices.Equal(found, want) {
		t.Errorf("found %q, want %q", found, want)
	}
}

// commandSurface lists every command path ("live serve") and flag
// ("--reference") of the CLI.
func commandSurface(root *cobra.Command) (commands, flags []string) {
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		c.Flags().VisitAll(func(f *pflag.Flag) { flags = append(flags, "--"+f.Name) })
		for _, sub := range c.Commands() {
			p := strings.TrimSpace(path + " " + sub.Name())
			commands = append(commands, p)
			walk(sub, p)
		}
	}
	walk(root, "")
	return commands, flags
}

type clause struct {
	line   int
	phrase string
	names  []string
}

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	lineKey    = regexp.MustCompile(`^\s*(?:-\s*)?(?:#\s*)?([a-z_]+):`)
	clauseEnd  = regexp.MustCompile(`[.;:]\s`)
)

// notBuiltClauses finds the clauses of a Markdown text that say something
// is not built, with the line each begins on and the names each holds.
func notBuiltClauses(text string) []clause {
	var out []clause
	var para []string
	start := 0
	flush := func() {
		joined := strings.Join(para, " ")
		// lineAt is the line of an offset in joined.
		lineAt := func(off int) int {
			n := 0
			for i, l := range para {
				if n += len(l) + 1; off < n {
					return start + i
				}
			}
			return start + len(para) - 1
		}
		from := 0
		ends := append(clauseEnd.FindAllStringIndex(joined, -1), []int{len(joined), len(joined)})
		for _, e := range ends {
			part := joined[from:e[0]]
			if m := notBuilt.FindStringIndex(part); m != nil {
				c := clause{line: lineAt(from + m[0]), phrase: part[m[0]:m[1]]}
				for _, b := range backticked.FindAllStringSubmatch(part, -1) {
					c.names = append(c.names, b[1])
				}
				out = append(out, c)
			}
			from = e[1]
		}
		para = nil
	}
	inCode := false
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			flush()
			inCode = !inCode
			continue
		}
		if inCode {
			if m := notBuilt.FindString(l); m != "" {
				c := clause{line: i + 1, phrase: m}
				if k := lineKey.FindStringSubmatch(l); k != nil {
					c.names = append(c.names, k[1])
				}
				for _, b := range backticked.FindAllStringSubmatch(l, -1) {
					c.names = append(c.names, b[1])
				}
				out = append(out, c)
			}
			continue
		}
		if strings.TrimSpace(l) == "" {
			flush()
			continue
		}
		if len(para) == 0 {
			start = i + 1
		}
		para = append(para, l)
	}
	flush()
	return out
}

// builtAs says what a name is in this build ("command", "flag", "key"),
// or "" when it is none of them.
func builtAs(name string, commands, flags, keys []string) string {
	name = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), "bin/"))
	if strings.HasPrefix(name, "--") {
		f, _, _ := strings.Cut(strings.Fields(name)[0], "=")
		if slices.Contains(flags, f) {
			return "flag"
		}
		return ""
	}
	words := strings.Fields(strings.TrimPrefix(name, "allot "))
	for n := len(words); n > 0; n-- {
		if slices.Contains(commands, strings.Join(words[:n], " ")) && (n > 1 || strings.HasPrefix(name, "allot ") || len(words) == 1) {
			return "command"
		}
	}
	key, _, _ := strings.Cut(name, ":")
	key = strings.TrimSpace(key)
	if key == "" || strings.ContainsAny(key, " /") {
		return ""
	}
	for _, k := range keys {
		if k == key || strings.HasSuffix(k, "."+key) {
			return "key"
		}
	}
	return ""
}
