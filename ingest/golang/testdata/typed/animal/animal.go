// Package animal is a small package for the typed pass's tests: methods,
// an embedded field, an interface and package-level state.
package animal

import "strings"

// Loud is how many times a loud animal speaks.
const Loud = 3

// Registry holds the animals by name.
var Registry = map[string]Speaker{}

// Speaker is anything that speaks.
//
// The second line of the doc is not kept.
type Speaker interface {
	// Speak returns what the speaker says.
	Speak() string
	Namer
}

// Namer has a name.
type Namer interface{ Name() string }

// Base is embedded by every animal.
type Base struct{ name string }

// Name returns the animal's name.
func (b Base) Name() string { return strings.ToUpper(b.name) }

// Dog is an animal with a Base.
type Dog struct {
	Base
	times int
}

// Speak barks, Loud times for a loud dog.
func (d *Dog) Speak() string {
	if d.times >= Loud {
		return d.Name() + bark(d.times)
	}
	return d.Base.Name() + bark(1)
}

func bark(n int) string { return strings.Repeat("woof", n) }

// Chorus lets every speaker speak, through the interface.
func Chorus(ss []Speaker) string {
	out := ""
	for _, s := range ss {
		out += s.Speak() + s.Name()
	}
	return out
}

// Register adds a speaker to the Registry.
func Register(s Speaker) { Registry[s.Name()] = s }

// Map applies f to each element: a generic function.
func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}
