package main

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgresProbe is gqlsh serve's readiness probe of a PostgreSQL cabinet
// (GET /readyz): a connection of its own to the same server, pinged, and
// made again after a failure. The server calls it at most once a second.
type postgresProbe struct {
	url  string
	mu   sync.Mutex
	conn *pgx.Conn
}

func (p *postgresProbe) ready(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil {
		c, err := pgx.Connect(ctx, p.url)
		if err != nil {
			return err
		}
		p.conn = c
	}
	if err := p.conn.Ping(ctx); err != nil {
		p.closeLocked()
		return err
	}
	return nil
}

func (p *postgresProbe) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeLocked()
}

func (p *postgresProbe) closeLocked() {
	if p.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = p.conn.Close(ctx)
		cancel()
		p.conn = nil
	}
}
