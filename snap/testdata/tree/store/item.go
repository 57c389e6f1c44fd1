package store

// Item is a thing to buy.
type Item struct {
	Name  string
	Cents int
	Kind  Kind
}

// Kind sorts items.
type Kind int

// The kinds.
const (
	Food Kind = iota
	Book
	Tool
)

// String names an item.
func (it Item) String() string { return it.Name + label(it.Kind) }

// Heavy reports whether an item ships at a cost.
func (it Item) Heavy() bool { return it.Kind == Tool }

func label(k Kind) string {
	switch k {
	case Food:
		return " (food)"
	case Book:
		return " (book)"
	}
	return ""
}

// MakeItem makes an item.
func MakeItem(name string, cents int) Item { return Item{Name: name, Cents: cents} }
