// Package store is large enough to be split into pieces in the snap tests.
package store

import "example.com/shop/geo"

// Cart holds items.
type Cart struct {
	Items []Item
	At    geo.Point
}

// New makes a cart.
func New() *Cart { return &Cart{} }

// Add puts an item in the cart.
func (c *Cart) Add(it Item) { c.Items = append(c.Items, it) }

// Total is what the cart costs.
func (c *Cart) Total() int {
	t := 0
	for _, it := range c.Items {
		t += Price(it)
	}
	return t + Tax(t) + Shipping(c.At)
}

// Shipping costs by distance.
func Shipping(p geo.Point) int { return int(geo.Dist(p, geo.Zero)) }

// Empty reports whether the cart is empty.
func (c *Cart) Empty() bool { return len(c.Items) == 0 }

// Clear empties the cart.
func (c *Cart) Clear() { c.Items = nil }
