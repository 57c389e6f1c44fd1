package store

// Rate is the discount in percent.
var Rate = 10

// Price is what an item costs after the discount.
func Price(it Item) int { return discount(it.Cents) }

func discount(c int) int { return c - c*Rate/100 }

// Round rounds cents to a multiple of five.
func Round(c int) int { return (c + 2) / 5 * 5 }

// Sum adds prices.
func Sum(items []Item) int {
	t := 0
	for _, it := range items {
		t += Round(Price(it))
	}
	return t
}

// Cheapest is the cheapest item.
func Cheapest(items []Item) Item {
	var best Item
	for i, it := range items {
		if i == 0 || Price(it) < Price(best) {
			best = it
		}
	}
	return best
}
