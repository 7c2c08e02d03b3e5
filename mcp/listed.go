package mcp

import (
	"strconv"

	"github.com/mcpcheck/mcpcheck/internal/jsonscan"
)

// Listed is the text a client shows the model of one page of a
// prompts/list, resources/list or resources/templates/list result: for
// each item its name, title and description, and a prompt's arguments'.
// Nil for any other message. The strings are copies: they outlive the frame.
var Listed = &Lazy[*ListedPage]{Decode: decodeListed}

// ListedPage is one page of a listing of prompts, resources or resource
// templates.
type ListedPage struct {
	Items []ListedItem
}

// ListedItem is one listed prompt, resource or resource template.
type ListedItem struct {
	// Key names the item stably: a prompt's name, a resource's uri, a
	// template's uriTemplate.
	Key    string
	Fields []TextField // in the order they were written
}

// TextField is one string member of an item, by its path inside the item
// ("description", "arguments[0].description").
type TextField struct {
	Path, Text string
}

// listedKinds maps a list method to the result member holding its items
// and the member that names an item.
var listedKinds = map[string][2]string{
	"prompts/list":             {"prompts", "name"},
	"resources/list":           {"resources", "uri"},
	"resources/templates/list": {"resourceTemplates", "uriTemplate"},
}

func decodeListed(v *View) *ListedPage {
	kind, ok := listedKinds[v.method]
	if !ok || v.result == nil {
		return nil
	}
	page := &ListedPage{}
	for _, el := range jsonscan.Elements(member(v.result, kind[0])) {
		item := ListedItem{}
		_ = jsonscan.EachMember(object(el), func(name, val []byte) {
			switch key := string(name); key {
			case kind[1]:
				item.Key = str(val)
				if key != "name" {
					return
				}
				fallthrough
			case "name", "title", "description":
				if s, ok := jsonscan.String(val); ok {
					item.Fields = append(item.Fields, TextField{Path: key, Text: s})
				}
			case "arguments":
				for i, arg := range jsonscan.Elements(val) {
					_ = jsonscan.EachMember(object(arg), func(name, val []byte) {
						switch key := string(name); key {
						case "name", "title", "description":
							if s, ok := jsonscan.String(val); ok {
								item.Fields = append(item.Fields, TextField{Path: "arguments[" + strconv.Itoa(i) + "]." + key, Text: s})
							}
						}
					})
				}
			}
		})
		page.Items = append(page.Items, item)
	}
	return page
}
