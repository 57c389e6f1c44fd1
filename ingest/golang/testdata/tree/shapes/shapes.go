package shapes

import (
	"fmt"

	g "example.com/tree/geom"
)

var Origin = g.Point{}

type Circle struct {
	C g.Point
	R float64
}

func (c Circle) Area() float64 { return g.Pi * c.R * c.R }

func (c Circle) String() string { return fmt.Sprint(c.R, describe(c)) }

func describe(c Circle) string { _ = g.Dist(c.C, Origin); return "circle" }

func init() {}
