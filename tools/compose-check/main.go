// compose-check validates docker-compose.yml with compose-go, the loader Docker Compose
// itself uses (schema, interpolation, references), so the file is checked on machines
// that have no Docker engine. It also holds the file to two promises the README makes:
// every service another waits for as healthy has a healthcheck compose can see, and the
// app's MongoDB writes are acknowledged only once journaled.
// Usage: go run ./tools/compose-check docker-compose.yml
package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
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
	problems := 0
	for _, name := range project.ServiceNames() {
		service := project.Services[name]
		found := check(project, service)
		for _, problem := range found {
			fmt.Fprintf(os.Stderr, "service %s: %s\n", name, problem)
		}
		if len(found) == 0 {
			fmt.Printf("service %s ok\n", name)
		}
		problems += len(found)
	}
	if problems > 0 {
		os.Exit(1)
	}
}

func check(project *types.Project, service types.ServiceConfig) []string {
	var problems []string
	for dependency, how := range service.DependsOn {
		if how.Condition != types.ServiceConditionHealthy {
			continue
		}
		// An image's HEALTHCHECK is invisible here; one stated in the file is not.
		target, ok := project.Services[dependency]
		if !ok || target.HealthCheck == nil || target.HealthCheck.Disable || len(target.HealthCheck.Test) == 0 {
			problems = append(problems, fmt.Sprintf("waits for %s to be healthy, but %s has no healthcheck", dependency, dependency))
		}
	}
	if uri, ok := service.Environment["MONGODB_URI"]; ok && uri != nil {
		if problem := journaled(*uri); problem != "" {
			problems = append(problems, problem)
		}
	}
	return problems
}

// journaled says what is missing for a write to be acknowledged only once it is on disk.
func journaled(uri string) string {
	parsed, err := url.Parse(uri)
	if err != nil {
		return fmt.Sprintf("MONGODB_URI does not parse: %v", err)
	}
	query := parsed.Query()
	if query.Get("w") != "majority" || !strings.EqualFold(query.Get("journal"), "true") {
		return "MONGODB_URI must ask for journaled writes (?w=majority&journal=true)"
	}
	return ""
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "docker-compose.yml is invalid: %v\n", err)
	os.Exit(1)
}
