package goldfish_test

import "github.com/goldfish-gql/goldfish/store"

type (
	storeNode = store.Node
	storeEdge = store.Edge
)
