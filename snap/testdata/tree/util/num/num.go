// Package num clamps.
package num

// Clamp keeps n in [lo, hi].
func Clamp(n, lo, hi int) int { return max(lo, min(n, hi)) }
