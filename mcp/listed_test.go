package mcp

import (
	"reflect"
	"testing"
)

func TestListed(t *testing.T) {
	t.Parallel()
	prompts := []byte(`{"prompts":[{"name":"review","title":"Code review","description":"Review a diff","arguments":[{"name":"diff","description":"The diff\u200b"},{"name":"style"}]},{"description":"no name"}],"nextCursor":"p2"}`)
	page := Listed.Of(NewView("prompts/list", nil, prompts))
	want := []ListedItem{
		{Key: "review", Fields: []TextField{{"name", "review"}, {"title", "Code review"}, {"description", "Review a diff"},
			{"arguments[0].name", "diff"}, {"arguments[0].description", "The diff\u200b"}, {"arguments[1].name", "style"}}},
		{Fields: []TextField{{"description", "no name"}}},
	}
	if page == nil || !reflect.DeepEqual(page.Items, want) {
		t.Fatalf("prompts: %+v", page)
	}
	resources := []byte(`{"resources":[{"uri":"file:///notes.md","name":"notes","description":"My notes","mimeType":"text/markdown"}]}`)
	page = Listed.Of(NewView("resources/list", nil, resources))
	if page == nil || !reflect.DeepEqual(page.Items, []ListedItem{{Key: "file:///notes.md", Fields: []TextField{{"name", "notes"}, {"description", "My notes"}}}}) {
		t.Fatalf("resources: %+v", page)
	}
	templates := []byte(`{"resourceTemplates":[{"uriTemplate":"db://{table}","name":"table","title":"A table"}]}`)
	page = Listed.Of(NewView("resources/templates/list", nil, templates))
	if page == nil || len(page.Items) != 1 || page.Items[0].Key != "db://{table}" || len(page.Items[0].Fields) != 2 {
		t.Fatalf("templates: %+v", page)
	}
	if Listed.Of(NewView("tools/list", nil, []byte(`{"tools":[]}`))) != nil || Listed.Of(NewView("prompts/list", nil, nil)) != nil {
		t.Error("Listed decodes what is not a prompt, resource or template listing")
	}
}
