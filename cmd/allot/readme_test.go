package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The documentation's shell examples are run as they are written. A fenced
// block marked `sh` in README.md or docs/*.md is a promise that pasting it
// into a shell, at the root of a checkout with bin/allot built, works;
// blocks marked `console` or `text` are shown, not run.
//
// Each block runs under `bash -euo pipefail` in a fresh temporary folder
// holding links to the repository's scenarios/ and docs/ and a bin/allot, so
// relative paths resolve and whatever a block writes (out/, cmp/, traces)
// lands there, not in the repository. The bin/allot there is this test
// binary, which acts as the allot command when docCLIEnv is set (see init
// below), so the examples run against the code under test without a
// separate build; ALLOT_BIN=PATH runs them against that binary instead
// (for example the PGO build: ALLOT_BIN=$PWD/bin/allot). A block that
// mentions ../shared/ runs with ../shared linked beside the folder, and is
// skipped where the repository has no ../shared beside it.
//
// A ```yaml block whose first line is `# docs/examples/NAME.yaml` shows that
// file: the lines after it must be the file, byte for byte.

// docCLIEnv makes this test binary run as the allot command. So does a
// first argument that is not a test flag: a job a live daemon runs gets a
// clean environment, yet this binary as its command must act as allot.
const docCLIEnv = "ALLOT_TEST_BINARY_IS_ALLOT"

func init() {
	if os.Getenv(docCLIEnv) == "1" || len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-test.") {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
}

// docBlock is one fenced block of a Markdown file.
type docBlock struct {
	file string // relative to the repository root
	line int    // of the opening fence
	lang string // first word of the info string
	body string
}

// fencedBlocks returns the fenced blocks of a Markdown file.
func fencedBlocks(t *testing.T, root, rel string) []docBlock {
	t.Helper()
	f, err := os.Open(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []docBlock
	var cur *docBlock
	var body strings.Builder
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			info := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			cur = &docBlock{file: rel, line: n}
			if len(info) > 0 {
				cur.lang = info[0]
			}
			body.Reset()
		case cur != nil && trimmed == "```":
			cur.body = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: a fenced block is never closed", rel, cur.line)
	}
	return out
}

// firstCommand names a block by its first command line.
func (b docBlock) firstCommand() string {
	for _, l := range strings.Split(b.body, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if i := strings.Index(l, " #"); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		l = strings.TrimSuffix(strings.TrimPrefix(l, "bin/"), "\\")
		if len(l) > 60 {
			l = l[:60]
		}
		return strings.ReplaceAll(strings.TrimSpace(l), "/", "_")
	}
	return "empty"
}

// documentedFiles lists README.md and docs/*.md, relative to the root.
func documentedFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	return files
}

func TestEveryShellBlockOfTheReadmeRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every shell block of the documentation: about a minute")
	}
	// Beside the tests that wait on a control plane (TestKueueDifferential
	// most), not before them.
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := os.Getenv("ALLOT_BIN")
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			t.Fatal(err)
		}
	} else if bin, err = filepath.Abs(bin); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(root, "..", "shared")
	_, err = os.Stat(shared)
	haveShared := err == nil

	ran := 0
	for _, rel := range documentedFiles(t, root) {
		for _, b := range fencedBlocks(t, root, rel) {
			if b.lang == "yaml" && strings.HasPrefix(b.body, "# docs/examples/") {
				checkShownExample(t, root, b)
			}
			if b.lang != "sh" {
				continue
			}
			ran++
			t.Run(filepath.Base(b.file)+":"+strconv.Itoa(b.line)+" "+b.firstCommand(), func(t *testing.T) {
				if strings.Contains(b.body, "../shared/") && !haveShared {
					t.Skip("needs ../shared traces: " + shared + " is absent")
				}
				runShellBlock(t, root, bin, shared, haveShared, b)
			})
		}
	}
	if ran == 0 {
		t.Fatal("no sh block found in README.md or docs/")
	}
}

// runShellBlock runs one block in a fresh folder laid out like a checkout.
func runShellBlock(t *testing.T, root, bin, shared string, haveShared bool, b docBlock) {
	top := t.TempDir()
	work := filepath.Join(top, "allot")
	for _, d := range []string{work, filepath.Join(work, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(work, "scenarios"):    filepath.Join(root, "scenarios"),
		filepath.Join(work, "docs"):         filepath.Join(root, "docs"),
		filepath.Join(work, "bin", "allot"): bin,
	}
	if haveShared {
		links[filepath.Join(top, "shared")] = shared
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-u", "-o", "pipefail", "-c", b.body)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), docCLIEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("%s:%d: still running after %v; slow examples belong in console blocks\n%s", b.file, b.line, took, tail(out.String()))
	}
	if err != nil {
		t.Fatalf("%s:%d: %v\n--- block:\n%s--- output:\n%s", b.file, b.line, err, b.body, tail(out.String()))
	}
	if took > 30*time.Second {
		t.Logf("%s:%d took %v: keep sh blocks quick (under about 30 s)", b.file, b.line, took.Round(time.Second))
	}
}

// checkShownExample holds a YAML block that names a file under
// docs/examples/ on its first line to that file's content (the lines after).
func checkShownExample(t *testing.T, root string, b docBlock) {
	t.Helper()
	first, shown, _ := strings.Cut(b.body, "\n")
	rel := strings.TrimSpace(strings.TrimPrefix(first, "#"))
	want, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Errorf("%s:%d shows %s: %v", b.file, b.line, rel, err)
		return
	}
	if string(want) != shown {
		t.Errorf("%s:%d shows %s, but the block differs from the file; copy the file into the block", b.file, b.line, rel)
	}
}

func tail(s string) string {
	const max = 4000
	if len(s) > max {
		return "...\n" + s[len(s)-max:]
	}
	return s
}
