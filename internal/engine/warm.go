package engine

import (
	"cmp"
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/goldfish-gql/goldfish/store/cabinet"
)

// Warm hydrates the sessions whose log in the cabinet holds Commits past
// their snapshot, which their first use would otherwise replay while its
// caller waits: after a stop without a flush (a kill, a crash), and on
// PostgreSQL whatever other hosts committed since the last snapshot. The
// most recently committed come first, as the likeliest to be asked for,
// several at a time (one per processor: a replay is work for one). Under
// a memory budget it stops once the resident sessions fill it (the next
// would only unload the ones it hydrated). progress, when not nil, is
// called with the number hydrated and the number to hydrate, first (0, n)
// and then after each, one call at a time. A session that fails to
// hydrate (damaged, say) is left to its first use, which reports it, and
// its error joined to what Warm returns; ctx or Close stops it.
func (db *DB) Warm(ctx context.Context, progress func(done, total int)) error {
	if progress == nil {
		progress = func(int, int) {}
	}
	todo, err := db.unflushed()
	if err != nil {
		progress(0, 0)
		return err
	}
	progress(0, len(todo))
	var (
		mu     sync.Mutex // guards done, errs and the calls of progress
		done   int
		errs   []error
		closed atomic.Bool
		wg     sync.WaitGroup
	)
	names := make(chan string)
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			for name := range names {
				err := db.warmOne(ctx, name)
				if errors.Is(err, ErrClosed) {
					closed.Store(true)
				}
				mu.Lock()
				done++
				if err != nil && !errors.Is(err, ErrClosed) {
					errs = append(errs, err)
				}
				progress(done, len(todo))
				mu.Unlock()
			}
		})
	}
	for _, name := range todo {
		if ctx.Err() != nil || closed.Load() {
			break
		}
		if m := db.mem; m != nil && m.bytes.Load() >= m.budget {
			break
		}
		names <- name
	}
	close(names)
	wg.Wait()
	if closed.Load() {
		errs = append(errs, ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// warmOne hydrates the session named, unless it was dropped since it was
// listed.
func (db *DB) warmOne(ctx context.Context, name string) error {
	db.mu.Lock()
	known := db.known[name]
	db.mu.Unlock()
	if !known {
		return nil
	}
	_, err := db.Session(ctx, name)
	return err
}

// unflushed lists the sessions of the cabinet whose log holds entries
// past their snapshot and that are not hydrated, the most recently
// committed first.
func (db *DB) unflushed() ([]string, error) {
	if db.cab == nil {
		return nil, nil
	}
	if err := db.enter(); err != nil {
		return nil, err
	}
	metas, err := db.cab.Sessions()
	db.exit()
	if err != nil {
		return nil, hostsError(err, "listing the sessions to hydrate")
	}
	metas = slices.DeleteFunc(metas, func(m cabinet.Meta) bool { return m.Version <= m.SnapVersion })
	slices.SortFunc(metas, func(a, b cabinet.Meta) int {
		return cmp.Or(b.LastCommit.Compare(a.LastCommit), cmp.Compare(a.Name, b.Name))
	})
	db.mu.Lock()
	defer db.mu.Unlock()
	var out []string
	for _, m := range metas {
		if s, ok := db.sessions[m.Name]; ok && s.hydrated.Load() {
			continue
		}
		out = append(out, m.Name)
	}
	return out, nil
}
