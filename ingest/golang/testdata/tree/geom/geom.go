// Package geom is a tiny package for the ingester's tests.
package geom

import "math"

// Pi is a constant.
const Pi = math.Pi

// Point is a point.
type Point struct{ X, Y float64 }

// Dist is the distance between two points.
func Dist(a, b Point) float64 { return math.Sqrt(sq(a.X-b.X) + sq(a.Y-b.Y)) }

func sq(x float64) float64 { return x * x }

// Scale scales p.
func (p *Point) Scale(f float64) { p.X, p.Y = p.X*f, p.Y*f }

func init() {}

var _, _ = 1, 2
