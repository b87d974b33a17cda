// Command codesize checks the size budgets that keep the tree easy to
// change: the CLI (cmd/allot) stays thin, no source file grows past a
// screenful of screens, no function past what one reader holds at once.
// Test files count only against the function budget; generated files
// (a "Code generated ... DO NOT EDIT." line) count against nothing.
//
//	go run ./scripts/codesize            # check, exit 1 naming each breach
//	go run ./scripts/codesize -report    # also list the largest of each
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Budgets, as issue 38 set them.
const (
	cliDir      = "cmd/allot"
	cliLines    = 2500 // non-test lines in cliDir, all files together
	cliFile     = 300  // lines in one non-test file of cliDir
	fileLines   = 600  // lines in one non-test file anywhere
	funcLines   = 120  // lines in one function or method, tests included
	reportCount = 10
)

var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

type file struct {
	path  string
	lines int
	test  bool
}

type fn struct {
	name  string // path:line name
	lines int
}

func main() {
	report := flag.Bool("report", false, "also list the largest files and functions")
	flag.Parse()
	files, funcs, err := scan(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "codesize:", err)
		os.Exit(2)
	}
	breaches := check(files, funcs)
	if *report {
		printReport(files, funcs)
	}
	for _, b := range breaches {
		fmt.Fprintln(os.Stderr, "codesize:", b)
	}
	if len(breaches) > 0 {
		os.Exit(1)
	}
}

// scan walks the Go files git would see (vendor, testdata and hidden
// folders skipped), counting lines per file and per function.
func scan(root string) ([]file, []fn, error) {
	var files []file
	var funcs []fn
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if generated.Match(src) {
			return nil
		}
		files = append(files, file{path: filepath.ToSlash(path), lines: countLines(src), test: strings.HasSuffix(name, "_test.go")})
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, decl := range f.Decls {
			if d, ok := decl.(*ast.FuncDecl); ok && d.Body != nil {
				start, end := fset.Position(d.Pos()), fset.Position(d.End())
				funcs = append(funcs, fn{name: fmt.Sprintf("%s:%d %s", filepath.ToSlash(path), start.Line, funcName(d)), lines: end.Line - start.Line + 1})
			}
		}
		return nil
	})
	return files, funcs, err
}

func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch r := t.(type) {
	case *ast.Ident:
		return r.Name + "." + d.Name.Name
	case *ast.IndexExpr:
		if id, ok := r.X.(*ast.Ident); ok {
			return id.Name + "." + d.Name.Name
		}
	case *ast.IndexListExpr:
		if id, ok := r.X.(*ast.Ident); ok {
			return id.Name + "." + d.Name.Name
		}
	}
	return d.Name.Name
}

func countLines(src []byte) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		n++
	}
	return n
}

func check(files []file, funcs []fn) []string {
	var out []string
	cli := 0
	for _, f := range files {
		if f.test {
			continue
		}
		inCLI := filepath.Dir(f.path) == cliDir
		if inCLI {
			cli += f.lines
			if f.lines > cliFile {
				out = append(out, fmt.Sprintf("%s: %d lines, over the CLI's %d per file", f.path, f.lines, cliFile))
			}
		} else if f.lines > fileLines {
			out = append(out, fmt.Sprintf("%s: %d lines, over %d per file", f.path, f.lines, fileLines))
		}
	}
	if cli > cliLines {
		out = append(out, fmt.Sprintf("%s: %d non-test lines, over %d", cliDir, cli, cliLines))
	}
	for _, f := range funcs {
		if f.lines > funcLines {
			out = append(out, fmt.Sprintf("%s: %d lines, over %d per function", f.name, f.lines, funcLines))
		}
	}
	sort.Strings(out)
	return out
}

func printReport(files []file, funcs []fn) {
	cli := 0
	var src []file
	for _, f := range files {
		if !f.test {
			src = append(src, f)
			if filepath.Dir(f.path) == cliDir {
				cli += f.lines
			}
		}
	}
	fmt.Printf("%s: %d non-test lines (budget %d)\n", cliDir, cli, cliLines)
	sort.Slice(src, func(i, j int) bool { return src[i].lines > src[j].lines })
	fmt.Println("largest non-test files:")
	for _, f := range src[:min(reportCount, len(src))] {
		fmt.Printf("  %5d %s\n", f.lines, f.path)
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].lines > funcs[j].lines })
	fmt.Println("longest functions:")
	for _, f := range funcs[:min(reportCount, len(funcs))] {
		fmt.Printf("  %5d %s\n", f.lines, f.name)
	}
}
