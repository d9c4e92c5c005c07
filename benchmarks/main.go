package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchmarks run [flags] | serve [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: run or serve", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks:", err)
		os.Exit(1)
	}
}

// serve runs one peer on /mcp, and /debug/mem, which reports the heap in
// use after a collection, until killed. It prints its address first.
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	peer := fs.String("peer", "hookflow-10", fmt.Sprintf("the server: one of %v", peers))
	stateless := fs.Bool("stateless", false, "serve without sessions")
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile to this file, until SIGINT or SIGTERM")
	_ = fs.Parse(args)
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-sig
			pprof.StopCPUProfile()
			_ = f.Close()
			os.Exit(0)
		}()
	}
	h, err := handler(*peer, *stateless)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.HandleFunc("/debug/mem", func(w http.ResponseWriter, _ *http.Request) {
		runtime.GC()
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		_ = json.NewEncoder(w).Encode(memStats{HeapInuse: ms.HeapInuse, Goroutines: runtime.NumGoroutine()})
	})
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Println(l.Addr().String())
	return http.Serve(l, mux)
}

type memStats struct {
	HeapInuse  uint64 `json:"heap_inuse"`
	Goroutines int    `json:"goroutines"`
}
