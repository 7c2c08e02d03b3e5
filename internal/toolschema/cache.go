package toolschema

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// Key identifies a compilation: the schema's bytes and the default dialect
// it is compiled under.
type Key [sha256.Size]byte

// KeyOf is the key of raw compiled under def.
func KeyOf(raw []byte, def Dialect) Key {
	h := sha256.New()
	h.Write([]byte{byte(def)})
	h.Write(raw)
	var k Key
	h.Sum(k[:0])
	return k
}

// Cache keeps compiled schemas by Key, least recently used out first, so a
// capture that calls a tool 100,000 times compiles its schema once. It is
// bounded by entries and by the bytes of the schemas it holds; it is safe
// for concurrent use.
type Cache struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int
	bytes      int
	order      *list.List // of *cacheEntry, most recently used first
	byKey      map[Key]*list.Element
}

type cacheEntry struct {
	key    Key
	schema *Schema
}

// NewCache makes a cache of at most maxEntries schemas whose sources add
// up to at most maxBytes.
func NewCache(maxEntries, maxBytes int) *Cache {
	return &Cache{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(), byKey: map[Key]*list.Element{}}
}

// Shared is the process's cache: rules that read the same tool schema share
// one compilation.
var Shared = NewCache(1024, 16<<20)

// Get returns raw compiled under def, compiling it on a miss.
func (c *Cache) Get(raw []byte, def Dialect) *Schema {
	return c.GetKey(KeyOf(raw, def), raw, def)
}

// GetKey is Get for a caller that already knows the key of raw and def.
func (c *Cache) GetKey(k Key, raw []byte, def Dialect) *Schema {
	c.mu.Lock()
	if e, ok := c.byKey[k]; ok {
		c.order.MoveToFront(e)
		c.mu.Unlock()
		return e.Value.(*cacheEntry).schema
	}
	c.mu.Unlock()
	s := Compile(raw, def) // outside the lock: compiling may take a while
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[k]; ok { // compiled meanwhile by another caller
		return e.Value.(*cacheEntry).schema
	}
	c.byKey[k] = c.order.PushFront(&cacheEntry{k, s})
	c.bytes += s.size
	for c.order.Len() > c.maxEntries || (c.bytes > c.maxBytes && c.order.Len() > 1) {
		last := c.order.Back()
		e := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.byKey, e.key)
		c.bytes -= e.schema.size
	}
	return s
}

// Cached returns the schema of k when the cache holds it (a use: it moves
// to the front), without compiling anything.
func (c *Cache) Cached(k Key) (*Schema, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[k]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cacheEntry).schema, true
	}
	return nil, false
}

// Len is the number of schemas held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Compilations is how many schemas this process compiled, cached or not:
// what a test of the caching measures.
func Compilations() int64 { return compiles.Load() }
