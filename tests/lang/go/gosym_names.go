// The oracle for a Go program's function table (tests/lang): Go's own
// debug/gosym reads the .gopclntab of the ELF file named by the argument
// and prints "ENTRY NAME" per function, entries in hex, as kprobe-probe
// must find them in a program linked with -ldflags='-s -w'.
package main

import (
	"debug/elf"
	"debug/gosym"
	"fmt"
	"os"
)

func main() {
	f, err := elf.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pcln, err := f.Section(".gopclntab").Data()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	table, err := gosym.NewTable(nil, gosym.NewLineTable(pcln, f.Section(".text").Addr))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, fn := range table.Funcs {
		fmt.Printf("%x %s\n", fn.Entry, fn.Name)
	}
}
