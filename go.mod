module github.com/mcpcheck/mcpcheck

go 1.26

require (
	github.com/jstemmer/go-junit-report/v2 v2.1.0
	github.com/owenrumney/go-sarif/v2 v2.3.3
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/spf13/pflag v1.1.0
)

require golang.org/x/text v0.14.0

require go.yaml.in/yaml/v3 v3.0.6
