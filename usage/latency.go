package usage

import (
	"math"
	"slices"
	"time"
)

// Latencies is a bounded record of durations: exact while few, then a
// log-scale histogram (buckets 2% apart), so a tool called a million times
// costs at most a few thousand counters and percentiles stay within 2%.
type Latencies struct {
	exact   []time.Duration // until maxExact samples
	buckets map[int32]int64 // after: bucket index → count
	n       int64
	max     time.Duration
}

// maxExact is how many durations a tool keeps exactly before it counts
// them in buckets.
const maxExact = 1024

// bucketBase is the ratio between neighbouring buckets.
const bucketBase = 1.02

func bucketOf(d time.Duration) int32 {
	if d <= time.Microsecond {
		return 0
	}
	return int32(math.Ceil(math.Log(float64(d)/float64(time.Microsecond)) / math.Log(bucketBase)))
}

func bucketValue(b int32) time.Duration {
	return time.Duration(float64(time.Microsecond) * math.Pow(bucketBase, float64(b)))
}

// Add records one duration.
func (l *Latencies) Add(d time.Duration) {
	if d < 0 {
		d = 0
	}
	l.n++
	l.max = max(l.max, d)
	if l.buckets == nil && len(l.exact) < maxExact {
		l.exact = append(l.exact, d)
		return
	}
	if l.buckets == nil {
		l.buckets = map[int32]int64{}
		for _, e := range l.exact {
			l.buckets[bucketOf(e)]++
		}
		l.exact = nil
	}
	l.buckets[bucketOf(d)]++
}

// Len is the number of durations recorded.
func (l *Latencies) Len() int64 { return l.n }

// Max is the longest duration recorded.
func (l *Latencies) Max() time.Duration { return l.max }

// Approximate reports percentiles read from buckets (within 2%).
func (l *Latencies) Approximate() bool { return l.buckets != nil }

// Percentile is the q-th percentile (0 < q <= 100) by the nearest-rank
// method; 0 when nothing was recorded.
func (l *Latencies) Percentile(q float64) time.Duration {
	if l.n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q / 100 * float64(l.n)))
	rank = min(max(rank, 1), l.n)
	if l.buckets == nil {
		s := slices.Clone(l.exact)
		slices.Sort(s)
		return s[rank-1]
	}
	keys := make([]int32, 0, len(l.buckets))
	for k := range l.buckets {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var seen int64
	for _, k := range keys {
		seen += l.buckets[k]
		if seen >= rank {
			return min(bucketValue(k), l.max)
		}
	}
	return l.max
}

// Summary is the record as reports show it.
func (l *Latencies) Summary() Latency {
	if l.n == 0 {
		return Latency{}
	}
	return Latency{
		Count: l.n, P50: l.Percentile(50), P95: l.Percentile(95), P99: l.Percentile(99), Max: l.max,
		Approximate: l.Approximate(),
	}
}

// Latency is a tool's timing: how many timed calls, and their percentiles.
type Latency struct {
	Count       int64         `json:"count"`
	P50         time.Duration `json:"p50_ns"`
	P95         time.Duration `json:"p95_ns"`
	P99         time.Duration `json:"p99_ns"`
	Max         time.Duration `json:"max_ns"`
	Approximate bool          `json:"approximate,omitempty"` // read from 2% buckets
}
