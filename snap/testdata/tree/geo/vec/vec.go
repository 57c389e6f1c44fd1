// Package vec adds points.
package vec

import "example.com/shop/geo"

// Add adds two points.
func Add(a, b geo.Point) geo.Point { return geo.Point{X: a.X + b.X, Y: a.Y + b.Y} }

// Len is the length of a point.
func Len(p geo.Point) float64 { return geo.Dist(p, geo.Zero) }
