package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// server is a peer running in a process of its own.
type server struct {
	cmd      *exec.Cmd
	base     string
	profiled bool
}

// start runs peer in a process of its own, writing a CPU profile to
// profile unless it is "".
func start(peer string, stateless bool, procs int, profile string) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "-peer", peer}
	if stateless {
		args = append(args, "-stateless")
	}
	if profile != "" {
		args = append(args, "-cpuprofile", profile)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("%s: no address: %w", peer, err)
	}
	return &server{cmd: cmd, base: "http://" + strings.TrimSpace(line), profiled: profile != ""}, nil
}

// stop ends the server; one that writes a profile is asked to, so that
// it finishes the profile first.
func (s *server) stop() {
	if s.profiled {
		_ = s.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = s.cmd.Wait(); close(done) }()
		select {
		case <-done:
			return
		case <-time.After(10 * time.Second):
		}
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// cpu returns the user and system CPU time the server process has used
// (from /proc, in clock ticks of 10 ms).
func (s *server) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from after it. utime and stime are fields 14 and 15.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / clockTicks)
}

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on Linux.
const clockTicks = 100

// rss returns the process's resident set and its peak, in bytes.
func (s *server) rss() (cur, peak uint64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseUint(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			cur = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return cur, peak
}

func (s *server) mem() (memStats, error) {
	var m memStats
	res, err := http.Get(s.base + "/debug/mem")
	if err != nil {
		return m, err
	}
	defer res.Body.Close()
	return m, json.NewDecoder(res.Body).Decode(&m)
}

// cell identifies a measurement.
type cell struct {
	peer     string
	stateful bool
	conc     int
}

func modeName(stateful bool) string {
	if stateful {
		return "stateful"
	}
	return "stateless"
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	rounds := fs.Int("rounds", 5, "interleaved rounds")
	calls := fs.Int("calls", 5000, "measured calls per peer, mode and concurrency in a round")
	warm := fs.Int("warm", 20, "warm-up calls per session before each measurement")
	concs := fs.String("conc", "1,16,64", "concurrencies (sessions calling at once)")
	modes := fs.String("modes", "stateful,stateless", "modes")
	only := fs.String("peers", strings.Join(peers, ","), "peers to compare")
	procs := fs.Int("server-procs", 1, "GOMAXPROCS of each server")
	idle := fs.Int("idle-sessions", 500, "sessions opened to measure memory per idle session (0: skip)")
	profiles := fs.String("cpuprofile-dir", "", "write each server's CPU profile of the first round to this directory, as PEER-MODE.pprof (all its concurrencies, warm-ups included)")
	_ = fs.Parse(args)

	var cs []int
	for _, f := range strings.Split(*concs, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return fmt.Errorf("bad -conc %q", *concs)
		}
		cs = append(cs, n)
	}
	var ms []bool
	for _, m := range strings.Split(*modes, ",") {
		ms = append(ms, m == "stateful")
	}
	ps := strings.Split(*only, ",")
	for _, p := range ps {
		if !slices.Contains(peers, p) && !slices.Contains(jsonPeers, p) {
			return fmt.Errorf("unknown peer %q (one of %v %v)", p, peers, jsonPeers)
		}
	}

	load1 := loadavg()
	begin := time.Now()
	results := map[cell][]result{}
	rssAfter := map[cell][]uint64{} // conc 0: the peak over the run
	for r := range *rounds {
		for _, stateful := range ms {
			// Rotate the order each round, so that no peer always runs
			// first or last.
			order := slices.Clone(ps)
			for range r % len(order) {
				order = append(order[1:], order[0])
			}
			for _, p := range order {
				profile := ""
				if *profiles != "" && r == 0 {
					profile = filepath.Join(*profiles, p+"-"+modeName(stateful)+".pprof")
				}
				srv, err := start(p, !stateful, *procs, profile)
				if err != nil {
					return err
				}
				for _, c := range cs {
					res, err := load(srv.base+"/mcp", stateful, c, *calls, *warm, srv.cpu)
					if err != nil {
						srv.stop()
						return fmt.Errorf("%s %s c=%d: %w", p, modeName(stateful), c, err)
					}
					k := cell{p, stateful, c}
					results[k] = append(results[k], res)
					cur, _ := srv.rss()
					rssAfter[k] = append(rssAfter[k], cur)
					fmt.Fprintf(os.Stderr, "round %d %-16s %-9s c=%-3d %8.0f calls/s p50 %-9v p99 %-9v server %5.1f µs CPU/call, generator %.2f cores, rss %.1f MiB\n",
						r+1, p, modeName(stateful), c, res.perSecond(), res.p50.Round(time.Microsecond), res.p99.Round(time.Microsecond),
						float64(res.srvPerCall())/1e3, res.genCPU.Seconds()/res.elapsed.Seconds(), float64(cur)/(1<<20))
				}
				srv.stop()
			}
		}
	}
	load2 := loadavg()

	idleMem := map[string][3]float64{} // heap per session, RSS per session, goroutines per session
	if *idle > 0 {
		for _, p := range ps {
			srv, err := start(p, false, *procs, "")
			if err != nil {
				return err
			}
			before, err1 := srv.mem()
			rss0, _ := srv.rss()
			c := newClient(srv.base+"/mcp", 16)
			for range *idle {
				if _, err := c.open(true); err != nil {
					srv.stop()
					return fmt.Errorf("%s: idle sessions: %w", p, err)
				}
			}
			c.http.CloseIdleConnections()
			after, err2 := srv.mem()
			rss1, _ := srv.rss()
			srv.stop()
			if err1 != nil || err2 != nil {
				return fmt.Errorf("%s: /debug/mem: %v %v", p, err1, err2)
			}
			n := float64(*idle)
			idleMem[p] = [3]float64{
				(float64(after.HeapInuse) - float64(before.HeapInuse)) / n,
				(float64(rss1) - float64(rss0)) / n,
				float64(after.Goroutines-before.Goroutines) / n,
			}
		}
	}

	// The report, in Markdown.
	fmt.Printf("Command: `benchmarks run %s`\n\n", strings.Join(args, " "))
	fmt.Printf("Machine: %d CPUs (%s/%s), %s; server GOMAXPROCS=%d; load average %s at the start, %s at the end; %v in all.\n\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), *procs, load1, load2, time.Since(begin).Round(time.Second))
	fmt.Printf("Medians of %d interleaved rounds of %d calls per cell. Ratios are medians of the per-round ratios.\n", *rounds, *calls)
	for _, stateful := range ms {
		for _, c := range cs {
			fmt.Printf("\n### %s, concurrency %d\n\n", modeName(stateful), c)
			fmt.Println("| peer | calls/s (min–max) | p50 | p99 | × sdk | × hookflow-0 | × mcpgo-10 | server µs CPU/call | generator cores | RSS after (MiB) |")
			fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
			for _, p := range ps {
				rs := results[cell{p, stateful, c}]
				ratio := func(other string) string {
					os := results[cell{other, stateful, c}]
					if len(os) != len(rs) || len(rs) == 0 {
						return "—"
					}
					var q []float64
					for i := range rs {
						q = append(q, rs[i].perSecond()/os[i].perSecond())
					}
					return fmt.Sprintf("%.2f", median(q))
				}
				var qps, p50, p99, rss, cpu, gen []float64
				for i, r := range rs {
					qps = append(qps, r.perSecond())
					cpu = append(cpu, float64(r.srvPerCall())/1e3)
					gen = append(gen, r.genCPU.Seconds()/r.elapsed.Seconds())
					p50 = append(p50, float64(r.p50))
					p99 = append(p99, float64(r.p99))
					rss = append(rss, float64(rssAfter[cell{p, stateful, c}][i])/(1<<20))
				}
				fmt.Printf("| %s | %.0f (%.0f–%.0f) | %v | %v | %s | %s | %s | %.1f | %.2f | %.1f |\n", p, median(qps), slices.Min(qps), slices.Max(qps),
					time.Duration(median(p50)).Round(time.Microsecond), time.Duration(median(p99)).Round(time.Microsecond),
					ratio("sdk"), ratio("hookflow-0"), ratio("mcpgo-10"), median(cpu), median(gen), median(rss))
			}
		}
	}
	if len(idleMem) > 0 {
		fmt.Printf("\n### Memory per idle session (stateful, %d sessions opened and left idle)\n\n", *idle)
		fmt.Println("| peer | heap in use per session (KiB) | RSS per session (KiB) | goroutines per session |")
		fmt.Println("|---|---:|---:|---:|")
		for _, p := range ps {
			m := idleMem[p]
			fmt.Printf("| %s | %.1f | %.1f | %.1f |\n", p, m[0]/1024, m[1]/1024, m[2])
		}
	}
	return nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
