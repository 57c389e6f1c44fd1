package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// byteSize is a flag holding a number of bytes, written plain (1048576)
// or with a unit: KiB, MiB, GiB, TiB (powers of 1024) or kB, MB, GB, TB
// (powers of 1000), in any case, with an optional fraction (1.5GiB).
type byteSize int64

var sizeUnits = []struct {
	name string
	mult float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"b", 1},
}

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

func parseByteSize(s string) (int64, error) {
	text := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range sizeUnits {
		if num, ok := strings.CutSuffix(text, u.name); ok {
			text, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil && mult == 1 {
		if n < 0 {
			return 0, fmt.Errorf("%q is negative: give a size such as 512MiB, 2GiB or a number of bytes (0: no budget)", s)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	switch {
	case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
		return 0, fmt.Errorf("%q is not a size: give one such as 512MiB, 2GiB, 1.5GB or a number of bytes", s)
	case f < 0:
		return 0, fmt.Errorf("%q is negative: give a size such as 512MiB, 2GiB or a number of bytes (0: no budget)", s)
	case f*mult >= math.MaxInt64:
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(f * mult), nil
}
