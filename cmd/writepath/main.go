package main

import (
	"os"

	"github.com/writepath/writepath/cmd/writepath/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Options{}))
}
