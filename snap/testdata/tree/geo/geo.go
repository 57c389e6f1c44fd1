// Package geo measures distances for the snap tests.
package geo

import "math"

// Zero is the origin.
var Zero = Point{}

// Point is a point.
type Point struct{ X, Y float64 }

// Dist is the distance between two points.
func Dist(a, b Point) float64 { return math.Sqrt(sq(a.X-b.X) + sq(a.Y-b.Y)) }

func sq(x float64) float64 { return x * x }
