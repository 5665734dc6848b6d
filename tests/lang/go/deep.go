// Stress for return probes on Go (tests/lang): Deep recurses with big
// frames, so the goroutine's stack grows (Go copies it to a larger one and
// rewrites the return addresses it finds), and runs the collector at the
// bottom (which walks every frame's return address). A uretprobe's
// trampoline address in place of a return address kills such a program
// ("unexpected return pc"). The program counts Deep's returns itself and
// prints "returns N" before exiting 0.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
)

var returns int

//go:noinline
func Deep(depth int, pad [64]int64) int {
	pad[depth%64] = int64(depth)
	var r int
	if depth == 0 {
		runtime.GC()
		r = int(pad[0])
	} else {
		r = Deep(depth-1, pad) + int(pad[depth%64]&1)
	}
	returns++
	return r
}

func main() {
	rounds, depth := 3, 200
	if len(os.Args) > 2 {
		rounds, _ = strconv.Atoi(os.Args[1])
		depth, _ = strconv.Atoi(os.Args[2])
	}
	sum := 0
	for i := 0; i < rounds; i++ {
		var pad [64]int64
		sum += Deep(depth, pad)
	}
	fmt.Println("returns", returns, "sum", sum)
}
