module github.com/mcpcheck/mcpcheck

go 1.26

require (
	github.com/jstemmer/go-junit-report/v2 v2.1.0
	github.com/owenrumney/go-sarif/v2 v2.3.3
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/spf13/pflag v1.1.0
)

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/text v0.14.0
)

require github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
