package store

// VAT is the tax in percent.
const VAT = 20

// Tax is the tax on t cents.
func Tax(t int) int { return t * VAT / 100 }

// Gross is t with its tax.
func Gross(t int) int { return t + Tax(t) }

// Net is t without its tax.
func Net(t int) int { return t * 100 / (100 + VAT) }

// Receipt lists a cart.
func Receipt(c *Cart) []string {
	var out []string
	for _, it := range c.Items {
		out = append(out, it.String())
	}
	return append(out, "total", itoa(Gross(Sum(c.Items))))
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for n > 0 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}
