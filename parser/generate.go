package parser

// go generate runs in this directory (parser/); the script finds the module
// root itself.
//go:generate bash ../scripts/gen-parser.sh
