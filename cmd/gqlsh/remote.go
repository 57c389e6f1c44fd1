package main

import (
	"context"
	"time"

	"github.com/goldfish-gql/goldfish/client"
)

// openRemote connects to the gqlsh serve at url (gqlsh --url) and opens
// session name there: the one place the shell reaches a server. It
// checks at once that the server answers and takes the token, so a wrong
// address or token ends the run before the first statement.
func openRemote(url, token, name string) (*client.Client, *client.Session, error) {
	c, err := client.New(url, client.Options{Token: token})
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := c.Session(ctx, name)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, s, nil
}
