// Command image builds the allot controller's container image without a
// Docker daemon and writes it as an OCI image-layout archive.
//
// The image is FROM scratch with a single layer: the static binary at
// /usr/local/bin/allot, an /etc/passwd and /etc/group naming the nonroot
// user 65532, and an empty /tmp. It runs as 65532:65532 with the binary as
// its entrypoint and no Cmd (the Deployment gives the arguments). Every
// timestamp is -created (default: the Unix epoch), so the same binary always
// gives a byte-identical archive.
//
// The archive loads with `skopeo copy oci-archive:FILE docker://REF`,
// `podman load -i FILE`, `docker load -i FILE` (Docker 25 or later) and
// `ctr image import FILE`. `make image` runs it:
//
//	go run . -binary ../../bin/linux_amd64/allot -o allot.tar -ref ghcr.io/allot-sim/allot:dev
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	binaryPath = "usr/local/bin/allot"
	passwd     = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group      = "root:x:0:\nnonroot:x:65532:\n"
)

// options are the command's flags.
type options struct {
	binary  string    // static linux binary to install as /usr/local/bin/allot
	out     string    // output archive
	ref     string    // NAME:TAG the archive's index entry is annotated with
	arch    string    // amd64 or arm64
	created time.Time // image creation time and every mtime
}

func main() {
	var o options
	var created string
	flag.StringVar(&o.binary, "binary", "", "static linux `PATH` installed as /usr/local/bin/allot (required)")
	flag.StringVar(&o.out, "o", "", "output OCI archive `PATH` (required)")
	flag.StringVar(&o.ref, "ref", "", "image reference `NAME:TAG`, e.g. ghcr.io/allot-sim/allot:dev (required)")
	flag.StringVar(&o.arch, "arch", "amd64", "image architecture: amd64 or arm64")
	flag.StringVar(&created, "created", "", "creation time, RFC 3339 (default: the Unix epoch, for reproducible output)")
	flag.Parse()

	err := func() error {
		if o.binary == "" || o.out == "" || o.ref == "" || flag.NArg() > 0 {
			return fmt.Errorf("usage: image -binary PATH -o PATH -ref NAME:TAG [-arch amd64|arm64] [-created RFC3339]")
		}
		o.created = time.Unix(0, 0).UTC()
		if created != "" {
			t, err := time.Parse(time.RFC3339, created)
			if err != nil {
				return fmt.Errorf("-created: %w", err)
			}
			o.created = t.UTC()
		}
		return build(o)
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	fmt.Printf("image: wrote %s (%s, linux/%s)\n", o.out, o.ref, o.arch)
}

// build writes the image for o into o.out.
func build(o options) error {
	if o.arch != "amd64" && o.arch != "arm64" {
		return fmt.Errorf("-arch %q: want amd64 or arm64", o.arch)
	}
	tag, err := name.NewTag(o.ref)
	if err != nil {
		return fmt.Errorf("-ref %q: %w", o.ref, err)
	}
	if !strings.HasSuffix(o.ref, ":"+tag.TagStr()) {
		return fmt.Errorf("-ref %q: want NAME:TAG with an explicit tag", o.ref)
	}
	bin, err := os.ReadFile(o.binary)
	if err != nil {
		return fmt.Errorf("reading binary: %w", err)
	}
	img, err := image(bin, o.arch, o.created)
	if err != nil {
		return fmt.Errorf("building image from %s: %w", o.binary, err)
	}

	dir, err := os.MkdirTemp("", "allot-image-layout-")
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.out, err)
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("writing OCI layout in %s: %w", dir, err)
	}
	if err := lp.WriteImage(img); err != nil {
		return fmt.Errorf("writing OCI layout in %s: %w", dir, err)
	}
	// The index entry is written by hand: lp.AppendImage would also set
	// artifactType, which marks an OCI artifact rather than a plain image.
	// ref.name is the OCI convention (the tag alone, as skopeo writes it);
	// containerd and Docker name the image from io.containerd.image.name.
	desc, err := partial.Descriptor(img)
	if err != nil {
		return fmt.Errorf("building image from %s: %w", o.binary, err)
	}
	err = lp.AppendDescriptor(v1.Descriptor{
		MediaType: desc.MediaType,
		Size:      desc.Size,
		Digest:    desc.Digest,
		Platform:  &v1.Platform{OS: "linux", Architecture: o.arch},
		Annotations: map[string]string{
			"org.opencontainers.image.ref.name": tag.TagStr(),
			"io.containerd.image.name":          o.ref,
		},
	})
	if err != nil {
		return fmt.Errorf("writing OCI layout in %s: %w", dir, err)
	}
	return writeArchive(dir, o.out, o.created)
}

// image returns the scratch image holding bin as /usr/local/bin/allot.
func image(bin []byte, arch string, created time.Time) (v1.Image, error) {
	rootfs, err := layerTar(bin, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(rootfs)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.BestCompression))
	if err != nil {
		return nil, err
	}

	// empty.Image is Docker-typed; the whole image is OCI so that the OCI
	// layout holds nothing but OCI media types.
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		Architecture: arch,
		OS:           "linux",
		RootFS:       v1.RootFS{Type: "layers"}, // Append adds the layer's diff ID
		Config: v1.Config{
			User:       "65532:65532",
			Entrypoint: []string{"/usr/local/bin/allot"},
			Env:        []string{"PATH=/usr/local/bin"},
			WorkingDir: "/",
			Labels: map[string]string{
				"org.opencontainers.image.source": "https://github.com/allot-sim/allot",
				"org.opencontainers.image.title":  "allot",
			},
		},
	})
	if err != nil {
		return nil, err
	}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "allot scripts/image", Comment: "allot binary and nonroot user"},
	})
	if err != nil {
		return nil, err
	}
	return mutate.CreatedAt(img, v1.Time{Time: created})
}

// layerTar returns the uncompressed root filesystem of the image's layer.
func layerTar(bin []byte, mtime time.Time) ([]byte, error) {
	type entry struct {
		name string
		mode int64
		data []byte // nil for a directory
	}
	entries := []entry{
		{"etc/", 0o755, nil},
		{"etc/group", 0o644, []byte(group)},
		{"etc/passwd", 0o644, []byte(passwd)},
		{"home/", 0o755, nil},
		{"home/nonroot/", 0o700, nil},
		{"tmp/", 0o1777, nil},
		{"usr/", 0o755, nil},
		{"usr/local/", 0o755, nil},
		{"usr/local/bin/", 0o755, nil},
		{binaryPath, 0o755, bin},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, ModTime: mtime, Typeflag: tar.TypeDir}
		if e.data != nil {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if e.name == "home/nonroot/" {
			h.Uid, h.Gid = 65532, 65532
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeArchive tars the OCI layout in dir into out: entries sorted, uid and
// gid 0 with no names, every mtime set to mtime. It writes a temporary file
// beside out and renames it, so out is never half-written.
func writeArchive(dir, out string, mtime time.Time) (err error) {
	var names []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return fmt.Errorf("reading OCI layout in %s: %w", dir, err)
	}
	sort.Strings(names)

	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	tw := tar.NewWriter(f)
	for _, n := range names {
		fi, err := os.Lstat(filepath.Join(dir, n))
		if err != nil {
			return fmt.Errorf("writing %s: %w", out, err)
		}
		h := &tar.Header{Name: n, Mode: 0o644, ModTime: mtime, Typeflag: tar.TypeReg, Size: fi.Size()}
		if fi.IsDir() {
			h.Name, h.Mode, h.Typeflag, h.Size = n+"/", 0o755, tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("writing %s: %w", out, err)
		}
		if !fi.IsDir() {
			if err := copyFile(tw, filepath.Join(dir, n)); err != nil {
				return fmt.Errorf("writing %s: %w", out, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	if err := os.Rename(f.Name(), out); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return nil
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
