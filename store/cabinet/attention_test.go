package cabinet

import (
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/goldfish-gql/goldfish/store"
)

// TestFormat2WithoutAttention: a format-2 file written before attention
// records were kept has no attention bucket; Open adds it, the sessions
// load as they were, and their records are kept from then on.
func TestFormat2WithoutAttention(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.gf")
	b, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := store.New()
	appendOne(t, b, "s", g)
	b.Close()
	// What an older goldfish wrote: the same file without the bucket.
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoFreelistSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketAttn) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for range 2 {
		b, err = Open(path, nil)
		if err != nil {
			t.Fatalf("a format-2 file without attention records: %v", err)
		}
		img, err := b.Load("s")
		if err != nil || img.Meta.Version != 1 || len(img.Log) != 1 {
			t.Fatalf("load: %+v, %v", img, err)
		}
		if err := b.SaveAttention("s", []byte("kept")).Wait(); err != nil {
			t.Fatal(err)
		}
		b.Close()
	}
	b, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if img, err := b.Load("s"); err != nil || string(img.Attention) != "kept" {
		t.Fatalf("attention %q, %v", img.Attention, err)
	}
	if _, err := b.Sessions(); err != nil {
		t.Fatal(err)
	}
}
