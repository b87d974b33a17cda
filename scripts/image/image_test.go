package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// buildTo builds an image of a tiny fake binary into dir/name.
func buildTo(t *testing.T, dir, name string, created time.Time) string {
	t.Helper()
	bin := filepath.Join(dir, "allot")
	if err := os.WriteFile(bin, []byte("#!/bin/true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	err := build(options{binary: bin, out: out, ref: "ghcr.io/allot-sim/allot:v1.2.3", arch: "arm64", created: created})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// untar extracts the archive at path into dir and returns its entry names
// in archive order, checking every entry's mtime and ownership.
func untar(t *testing.T, path, dir string, mtime time.Time) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if !h.ModTime.Equal(mtime) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: mtime %v uid %d/%q gid %d/%q, want %v and 0 with no names", h.Name, h.ModTime, h.Uid, h.Uname, h.Gid, h.Gname, mtime)
		}
		p := filepath.Join(dir, h.Name)
		if h.Typeflag == tar.TypeDir {
			err = os.MkdirAll(p, 0o755)
		} else {
			var data []byte
			if data, err = io.ReadAll(tr); err == nil {
				err = os.WriteFile(p, data, 0o644)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	epoch := time.Unix(0, 0).UTC()
	out := buildTo(t, dir, "a.tar", epoch)

	layoutDir := filepath.Join(dir, "layout")
	names := untar(t, out, layoutDir, epoch)
	if !slices.IsSorted(names) {
		t.Errorf("archive entries not sorted: %q", names)
	}
	if b, err := os.ReadFile(filepath.Join(layoutDir, "oci-layout")); err != nil || !strings.Contains(string(b), `"imageLayoutVersion"`) {
		t.Fatalf("oci-layout: %q, %v", b, err)
	}

	idx, err := layout.ImageIndexFromPath(layoutDir)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 {
		t.Fatalf("index.json has %d manifests, want 1", len(im.Manifests))
	}
	desc := im.Manifests[0]
	if got := desc.Annotations["org.opencontainers.image.ref.name"]; got != "v1.2.3" {
		t.Errorf("ref.name = %q, want v1.2.3", got)
	}
	if desc.ArtifactType != "" || desc.Platform == nil || desc.Platform.Architecture != "arm64" {
		t.Errorf("index entry: artifactType %q, platform %+v; want none and linux/arm64", desc.ArtifactType, desc.Platform)
	}
	if got := desc.Annotations["io.containerd.image.name"]; got != "ghcr.io/allot-sim/allot:v1.2.3" {
		t.Errorf("io.containerd.image.name = %q", got)
	}

	img, err := idx.Image(desc.Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if err := validate.Image(img); err != nil {
		t.Errorf("validate.Image: %v", err)
	}
	if cf.OS != "linux" || cf.Architecture != "arm64" || c.User != "65532:65532" ||
		!slices.Equal(c.Entrypoint, []string{"/usr/local/bin/allot"}) || len(c.Cmd) != 0 ||
		!cf.Created.Time.Equal(epoch) || cf.RootFS.Type != "layers" || len(cf.RootFS.DiffIDs) != 1 {
		t.Errorf("config: os %q arch %q user %q entrypoint %q cmd %q created %v", cf.OS, cf.Architecture, c.User, c.Entrypoint, c.Cmd, cf.Created)
	}

	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v; want 1", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string]*tar.Header{}
	contents := map[string]string{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		files[h.Name], contents[h.Name] = h, string(b)
	}
	if h := files["usr/local/bin/allot"]; h == nil || h.Mode != 0o755 || h.Uid != 0 || h.Gid != 0 || contents[h.Name] != "#!/bin/true\n" {
		t.Errorf("usr/local/bin/allot: %+v", h)
	}
	if !strings.Contains(contents["etc/passwd"], "nonroot:x:65532:65532:") || !strings.Contains(contents["etc/group"], "nonroot:x:65532:") {
		t.Errorf("passwd %q, group %q: no nonroot 65532", contents["etc/passwd"], contents["etc/group"])
	}
	if h := files["tmp/"]; h == nil || h.Typeflag != tar.TypeDir || h.Mode != 0o1777 {
		t.Errorf("tmp/: %+v", h)
	}
}

func TestReproducible(t *testing.T) {
	dir := t.TempDir()
	epoch := time.Unix(0, 0).UTC()
	a, _ := os.ReadFile(buildTo(t, dir, "a.tar", epoch))
	b, _ := os.ReadFile(buildTo(t, dir, "b.tar", epoch))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("two builds of the same input differ (%d and %d bytes)", len(a), len(b))
	}
	c, _ := os.ReadFile(buildTo(t, dir, "c.tar", epoch.Add(time.Hour)))
	if bytes.Equal(a, c) {
		t.Error("-created does not change the archive")
	}
}

func TestBuildErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		o    options
		want string
	}{
		{"arch", options{binary: "x", out: "y", ref: "a/b:c", arch: "386"}, "-arch"},
		{"untagged ref", options{binary: "x", out: "y", ref: "ghcr.io/a/b", arch: "amd64"}, "explicit tag"},
		{"missing binary", options{binary: filepath.Join(dir, "nope"), out: "y", ref: "a/b:c", arch: "amd64"}, "nope"},
		{"unwritable out", options{binary: "image_test.go", out: filepath.Join(dir, "no", "dir", "x.tar"), ref: "a/b:c", arch: "amd64"}, "x.tar"},
	} {
		err := build(tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to name %q", tc.name, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed builds left files behind: %v", entries)
	}
}
