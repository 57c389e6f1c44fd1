// Command shopd prints a receipt.
package main

import (
	"fmt"

	"example.com/shop/store"
	"example.com/shop/util/num"
	"example.com/shop/util/text"
)

func main() {
	c := store.New()
	c.Add(store.MakeItem("tea", num.Clamp(350, 0, 1000)))
	for _, l := range store.Receipt(c) {
		fmt.Println(text.Title(l))
	}
}
