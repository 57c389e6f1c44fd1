// Package zoo uses package animal from outside.
package zoo

import (
	"fmt"

	"example.com/typed/animal"
)

// Keeper keeps a dog and embeds it, so the dog's methods are the
// keeper's.
type Keeper struct {
	*animal.Dog
	log func(string)
}

// Open opens the zoo.
func Open() string {
	d := &animal.Dog{}
	animal.Register(d)
	k := Keeper{Dog: d, log: func(string) {}}
	k.log(k.Speak())           // a field of function type is no call edge; Speak is promoted
	say := (*animal.Dog).Speak // a method expression
	names := animal.Map[animal.Speaker, string]([]animal.Speaker{d}, animal.Speaker.Name)
	fmt.Println(names, say(d))
	return animal.Chorus(nil)
}
