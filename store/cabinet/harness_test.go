package cabinet_test

import (
	"path/filepath"
	"testing"

	"github.com/goldfish-gql/goldfish/store/cabinet"
	"github.com/goldfish-gql/goldfish/store/cabinet/cabinettest"
)

// TestBackend runs the suite every backend runs on the bbolt file.
func TestBackend(t *testing.T) {
	cabinettest.Run(t, func(t *testing.T) cabinettest.Opener {
		path := filepath.Join(t.TempDir(), "cabinet.gf")
		return func() (cabinet.Cabinet, error) { return cabinet.Open(path, nil) }
	})
}
