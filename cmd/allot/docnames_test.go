package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The documents point readers at tests by name; each name must be a test
// that exists (a name ending in "..." stands for every test it begins).
func TestDocumentsNameOnlyTestsThatExist(t *testing.T) {
	root := filepath.Join("..", "..")
	var src strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			src.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := src.String()
	docs := append(documentedFiles(t, root), "ARCHITECTURE.md", "CONTRIBUTING.md")
	name := regexp.MustCompile("`(Test[A-Z][A-Za-z0-9_]*)(\\.\\.\\.)?")
	for _, rel := range docs {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range name.FindAllStringSubmatch(string(b), -1) {
			decl := "func " + m[1]
			if m[2] == "" {
				decl += "("
			}
			if !strings.Contains(tests, decl) {
				t.Errorf("%s names %s, which no test file declares", rel, m[1]+m[2])
			}
		}
	}
}
