// A Go program whose functions have the shapes Go's tools name
// (tests/lang): package functions, methods on a value and a pointer
// receiver, a generic function's instantiations and closures. Run with an
// argument N it loops N times (so probes can count hits), then prints what it
// computed. Standard library only.
package main

import (
	"fmt"
	"os"
	"strconv"
)

type Shop struct {
	name  string
	stock int
}

//go:noinline
func Price(qty int, unit float64) float64 {
	return float64(qty) * unit
}

//go:noinline
func Greet(name string) string {
	return "hello " + name
}

//go:noinline
func (s *Shop) Restock(item string, n int) int {
	s.stock += n + len(item)
	return s.stock
}

//go:noinline
func (s Shop) Count() int {
	return s.stock
}

//go:noinline
func Max[T int | float64](a, b T) T {
	if a > b {
		return a
	}
	return b
}

//go:noinline
func Split(n int) (quot int, rem int) {
	return n / 7, n % 7
}

func main() {
	loops := 1
	if len(os.Args) > 1 {
		loops, _ = strconv.Atoi(os.Args[1])
	}
	shop := &Shop{name: "corner"}
	total := 0.0
	count := 0
	add := func(v float64) { total += v }
	for i := 0; i < loops; i++ {
		add(Price(i+1, 1.5))
		shop.Restock("item"+strconv.Itoa(i), i)
		count += shop.Count() + Max(i, 3)
		total += Max(1.5, 2.5)
		q, r := Split(i)
		count += q + r
	}
	fmt.Println(Greet(shop.name), total, count)
}
