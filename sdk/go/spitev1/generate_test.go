package spitev1

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// The header line naming protoc's version: it depends on the machine's protoc, the
// code does not.
var protocVersion = regexp.MustCompile(`(?m)^//( \t| - )protoc +v?[0-9][^\n]*\n`)

// TestGeneratedCodeIsFresh regenerates the package from proto/ and fails if the result
// differs from the committed files: after a change to the .proto files, run
// `go generate ./spitev1`. Without protoc it is skipped, except in CI (CI=true).
func TestGeneratedCodeIsFresh(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("go", "-C", filepath.Join("..", "tools"), "run", "./genproto",
		"-proto", filepath.Join("..", "..", "..", "proto"), "-out", out)
	output, err := cmd.CombinedOutput()
	if err != nil && bytes.Contains(output, []byte("genproto: no protoc")) && os.Getenv("CI") != "true" {
		t.Skipf("cannot regenerate here: %s", output)
	}
	if err != nil {
		t.Fatalf("genproto failed: %v\n%s", err, output)
	}
	generated, _ := filepath.Glob(filepath.Join(out, "spitev1", "*.go"))
	committed, _ := filepath.Glob("*.pb.go")
	if len(generated) != len(committed) {
		t.Errorf("regeneration gives %d files, %d are committed: run `go generate ./spitev1`", len(generated), len(committed))
	}
	for _, path := range generated {
		fresh, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		old, err := os.ReadFile(filepath.Base(path))
		if err != nil {
			t.Errorf("%s is not committed: run `go generate ./spitev1`", filepath.Base(path))
			continue
		}
		if !bytes.Equal(protocVersion.ReplaceAll(fresh, nil), protocVersion.ReplaceAll(old, nil)) {
			t.Errorf("%s differs from what proto/ generates: run `go generate ./spitev1`", filepath.Base(path))
		}
	}
}
