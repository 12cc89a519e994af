// Command genproto regenerates the Go code of the wire contract (package spitev1) from
// the repository's proto/ directory, the one source of the contract.
//
// It runs in this tools module, whose go.mod pins the protoc plugins (protoc-gen-go and
// protoc-gen-go-grpc, as `tool` dependencies), so every machine generates the same code:
//
//	go generate ./spitev1                       # from sdk/go: rewrites spitev1/*.pb.go
//	go -C tools run ./genproto -out DIR         # writes DIR/spitev1/*.pb.go instead
//
// protoc itself is taken from $PROTOC (a command line), else the repository's Python
// environment (.venv, `python -m grpc_tools.protoc`, as the Python SDK is generated),
// else `protoc` on PATH (Debian: apt-get install protobuf-compiler).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// module is the Go module that holds package spitev1; protoc writes each file to its
// go_package path with this prefix removed.
const module = "github.com/spite-arena/spite/sdk/go"

func main() {
	// Defaults are relative to sdk/go/tools, where `go -C tools run` and go generate run this.
	protoDir := flag.String("proto", filepath.Join("..", "..", "..", "proto"), "the proto root (holds spite/v1)")
	out := flag.String("out", "..", "the output root: files go to OUT/spitev1")
	flag.Parse()
	if err := generate(*protoDir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genproto:", err)
		os.Exit(1)
	}
}

// errNoProtoc starts with the words the freshness test looks for to tell a machine
// without protoc from a failure (`go run` does not pass on an exit status).
var errNoProtoc = errors.New("no protoc: run `make setup` (the Python environment's grpcio-tools), " +
	"install Debian's protobuf-compiler, or set PROTOC to a protoc command line")

func generate(protoDir, out string) error {
	protos, err := filepath.Glob(filepath.Join(protoDir, "spite", "v1", "*.proto"))
	if err != nil || len(protos) == 0 {
		return fmt.Errorf("no .proto files in %s", filepath.Join(protoDir, "spite", "v1"))
	}
	protoc, err := findProtoc(protoDir)
	if err != nil {
		return err
	}
	args := append(protoc[1:], "-I"+protoDir)
	for _, plugin := range []string{"protoc-gen-go", "protoc-gen-go-grpc"} {
		path, err := toolPath(plugin)
		if err != nil {
			return err
		}
		args = append(args, "--plugin="+plugin+"="+path)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	args = append(args,
		"--go_out="+out, "--go_opt=module="+module,
		"--go-grpc_out="+out, "--go-grpc_opt=module="+module)
	for _, proto := range protos {
		rel, err := filepath.Rel(protoDir, proto)
		if err != nil {
			return err
		}
		args = append(args, filepath.ToSlash(rel))
	}
	cmd := exec.Command(protoc[0], args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(protoc, " "), err)
	}
	return nil
}

// findProtoc returns the protoc command line to use.
func findProtoc(protoDir string) ([]string, error) {
	if env := strings.Fields(os.Getenv("PROTOC")); len(env) > 0 {
		return env, nil
	}
	python := filepath.Join(protoDir, "..", ".venv", "bin", "python")
	if _, err := os.Stat(python); err == nil {
		probe := exec.Command(python, "-c", "import grpc_tools.protoc")
		if probe.Run() == nil {
			return []string{python, "-m", "grpc_tools.protoc"}, nil
		}
	}
	if path, err := exec.LookPath("protoc"); err == nil {
		return []string{path}, nil
	}
	return nil, errNoProtoc
}

// toolPath builds (or finds in the build cache) a tool pinned by this module's go.mod.
func toolPath(name string) (string, error) {
	output, err := exec.Command("go", "tool", "-n", name).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", fmt.Errorf("go tool -n %s: %s", name, strings.TrimSpace(string(exit.Stderr)))
		}
		return "", fmt.Errorf("go tool -n %s: %w", name, err)
	}
	return strings.TrimSpace(string(output)), nil
}
