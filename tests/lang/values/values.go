// Go values for the values oracle (values_oracle.py): each read by
// kprobe-probe and by gdb at the same address, optimized and not.
package main

import (
	"fmt"
	"os"
)

type Item struct {
	Name  string
	Price float64
	Qty   int
}

// Go has no enums: a typed constant is its number (gdb shows 2).
type Level int

const (
	Low Level = iota
	Mid
	High
)

//go:noinline
func Rate(level Level, n int) int {
	fmt.Println(level, n)
	return int(level) + n
}

//go:noinline
func Greet(name string, tags []int, unit float64, it *Item) int {
	fmt.Println(name, len(tags), unit, it.Name, it.Price) // @greet_body
	return len(name) + len(tags)
}

func main() {
	full := "hello, substring world"
	sub := full[7:16] // not NUL-terminated: "substring" followed by " world"
	it := &Item{Name: "widget", Price: 2.5, Qty: 3}
	n := Greet(sub, []int{4, 5, 6}, 1.25, it)
	n += Greet(full, make([]int, 20), 3.5, it)
	n += Rate(High, 1) + Rate(Mid, 2)
	os.Exit(n % 2)
}
