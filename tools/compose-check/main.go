// compose-check validates docker-compose.yml with compose-go, the loader Docker Compose
// itself uses (schema, interpolation, references), so the file is checked on machines
// that have no Docker engine. Usage: go run ./tools/compose-check docker-compose.yml
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check <compose file>")
		os.Exit(2)
	}
	file, err := filepath.Abs(os.Args[1])
	if err != nil {
		fail(err)
	}
	options, err := cli.NewProjectOptions([]string{file}, cli.WithWorkingDirectory(filepath.Dir(file)), cli.WithOsEnv, cli.WithName("delegate"))
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	for _, name := range project.ServiceNames() {
		fmt.Printf("service %s ok\n", name)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "docker-compose.yml is invalid: %v\n", err)
	os.Exit(1)
}
