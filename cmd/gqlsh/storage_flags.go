package main

import (
	"flag"
	"fmt"
)

// storageFlags are the flags gqlsh serve and gqlsh mcp share to say where
// the sessions live and how much of them stays in memory.
type storageFlags struct {
	mem                bool
	cabinet            string
	postgres, schema   string
	budget             byteSize
	postgresSharedWith string // "other hosts", "other servers": for the help
}

// register adds the flags to fs.
func (f *storageFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.mem, "mem", false, "keep sessions in memory for this run only (no cabinet file)")
	fs.StringVar(&f.cabinet, "cabinet", "", "keep sessions in the cabinet file `PATH` (default: as gqlsh)")
	fs.StringVar(&f.postgres, "postgres", "", "keep sessions in PostgreSQL at `URL`, shared with "+f.postgresSharedWith+" (default $GOLDFISH_POSTGRES unless --cabinet or --mem)")
	fs.StringVar(&f.schema, "postgres-schema", "", "the PostgreSQL schema `NAME` that holds the sessions (default goldfish)")
	fs.Var(&f.budget, "memory-budget", "unload idle sessions past `SIZE` of estimated memory (512MiB, 2GiB, bytes; 0: no budget; in memory nothing is unloaded)")
}

// check refuses flags that exclude each other, saying so as cmd; false
// means the command exits 2.
func (f *storageFlags) check(cmd string, e env) bool {
	switch {
	case f.mem && f.cabinet != "":
		fmt.Fprintf(e.stderr, "%s: give --cabinet or --mem, not both\n", cmd)
		return false
	case f.postgres != "" && (f.mem || f.cabinet != ""):
		fmt.Fprintf(e.stderr, "%s: give --postgres, --cabinet or --mem, only one\n", cmd)
		return false
	}
	return true
}

// options are openDB's options for these flags.
func (f *storageFlags) options(e env) dbOptions {
	return dbOptions{mem: f.mem, cabinet: f.cabinet, postgres: f.postgres, schema: f.schema,
		memoryBudget: int64(f.budget), lookupEnv: e.lookupEnv, goos: e.goos}
}

// warn says, as cmd, what the flags ask for that cannot be done.
func (f *storageFlags) warn(cmd string, e env) {
	if f.budget > 0 && f.mem {
		fmt.Fprintf(e.stderr, "%s: --memory-budget does nothing with --mem: sessions in memory have no cabinet to hydrate again from\n", cmd)
	}
}
