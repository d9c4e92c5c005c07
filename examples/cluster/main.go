package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/plugins/cache"
	"github.com/hookflow/hookflow/plugins/ratelimit"
	"github.com/hookflow/hookflow/plugins/sessiongate"
	"github.com/hookflow/hookflow/stages"
)

func main() {
	addr := flag.String("http", "", "serve stateless streamable HTTP on this address (required)")
	redisAddr := flag.String("redis", "", "the Redis every instance shares (required)")
	name := flag.String("name", "", "this instance's name, in every result (default: the address)")
	prefix := flag.String("prefix", "hookflow-cluster:", "the Redis key prefix of this deployment")
	budget := flag.Int("budget", 40, "calls of the spend tool allowed across all instances")
	flag.Parse()
	if *addr == "" || *redisAddr == "" {
		flag.Usage()
		os.Exit(2)
	}
	if *name == "" {
		*name = *addr
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	rdb := redis.NewClient(ratelimit.RedisClientOptions(*redisAddr, ratelimit.DefaultTimeout))
	defer rdb.Close()
	srv, err := newServer(instance{name: *name, rdb: rdb, prefix: *prefix, budget: *budget, logger: logger})
	if err != nil {
		log.Fatal(err)
	}
	h, err := srv.HTTPHandler(&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
	if err != nil {
		log.Fatal(err)
	}
	hs := framework.NewHTTPServer(*addr, h)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		// Let calls under way finish; new ones go to the other instances.
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
	}()
	logger.Info("cluster: serving", "instance", *name, "addr", *addr)
	if err := hs.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

// instance is what one server instance is configured with.
type instance struct {
	name   string
	rdb    *redis.Client
	prefix string
	budget int
	logger *slog.Logger
}

type lookupIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type lookupOut struct {
	City       string `json:"city"`
	Forecast   string `json:"forecast"`
	ExecutedBy string `json:"executed_by"`
}

type spendOut struct {
	ServedBy string `json:"served_by"`
}

type workIn struct {
	ID string `json:"id" jsonschema:"the call's ID, recorded in Redis"`
	MS int    `json:"ms" jsonschema:"how long to work, in milliseconds"`
}

type workOut struct {
	ID       string `json:"id"`
	ServedBy string `json:"served_by"`
}

// SessionHeader is the HTTP header in which clients name their session:
// stateless HTTP has no session ID of its own.
const SessionHeader = "X-Cluster-Session"

// Redis hashes the work tool records calls in, under the prefix.
const (
	startedKey  = "work:started"  // call ID → times started
	finishedKey = "work:finished" // call ID → times finished
	inflightKey = "work:inflight" // instance name → calls under way
	executedKey = "lookup:executed"
)

// newServer builds one instance: the tools, the rate limit and the cache on
// Redis, and a hook that says which instance answered.
func newServer(in instance) (*framework.Server, error) {
	srv := framework.NewServer(&mcp.Implementation{Name: "cluster", Version: "1.0.0"}, &framework.Options{Logger: in.logger})
	limits := ratelimit.New(ratelimit.Config{
		Tools:   map[string]ratelimit.Limit{"spend": {Burst: in.budget}},
		Backend: ratelimit.NewRedis(in.rdb, &ratelimit.RedisOptions{Prefix: in.prefix + "ratelimit:"}),
	})
	results := cache.New(cache.Config{TTL: time.Minute, SharedAcrossPrincipals: true,
		Backend: cache.NewRedis(in.rdb, &cache.RedisOptions{Prefix: in.prefix + "cache:"})})
	// Stateless HTTP has no session ID: the client names its session in a
	// header, and every instance reads the session's state from Redis.
	gate := sessiongate.New(sessiongate.Config{Requires: []string{"journal"}, Key: sessiongate.ByHeader(SessionHeader),
		Store: sessiongate.NewRedis(in.rdb, &sessiongate.RedisOptions{Prefix: in.prefix + "sessiongate:"})})
	rdb, key := in.rdb, func(k string) string { return in.prefix + k }
	return srv, errors.Join(
		srv.Use(limits, results, gate),
		srv.Hook(flows.Hook{Flow: flows.ToolsCallTool, Stage: stages.BeforeValidation, Name: "served-by", Fn: func(c *flows.Context) error {
			return framework.AddContext(c, "served by "+in.name)
		}}),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "lookup", Description: "Forecast for a city (cached).", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(ctx context.Context, _ *mcp.CallToolRequest, q lookupIn) (lookupOut, error) {
				if err := rdb.HIncrBy(ctx, key(executedKey), q.City, 1).Err(); err != nil {
					return lookupOut{}, err
				}
				return lookupOut{City: q.City, Forecast: "sunny", ExecutedBy: in.name}, nil
			}),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "session_init", Description: "Initializes the caller's session (the session gate's init tool)."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (spendOut, error) {
				return spendOut{ServedBy: in.name}, nil
			}),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "journal", Description: "Needs an initialized session."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (spendOut, error) {
				return spendOut{ServedBy: in.name}, nil
			}),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "spend", Description: "Spends one call of the shared budget."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (spendOut, error) {
				return spendOut{ServedBy: in.name}, nil
			}),
		framework.AddToolFunc(srv, &mcp.Tool{Name: "work", Description: "Works for ms milliseconds."},
			func(ctx context.Context, _ *mcp.CallToolRequest, w workIn) (workOut, error) {
				if err := rdb.HIncrBy(ctx, key(startedKey), w.ID, 1).Err(); err != nil {
					return workOut{}, err
				}
				rdb.HIncrBy(ctx, key(inflightKey), in.name, 1)
				defer rdb.HIncrBy(context.WithoutCancel(ctx), key(inflightKey), in.name, -1)
				select {
				case <-time.After(time.Duration(w.MS) * time.Millisecond):
				case <-ctx.Done():
					return workOut{}, ctx.Err()
				}
				if err := rdb.HIncrBy(ctx, key(finishedKey), w.ID, 1).Err(); err != nil {
					return workOut{}, fmt.Errorf("recording the finish of %s: %w", w.ID, err)
				}
				return workOut{ID: w.ID, ServedBy: in.name}, nil
			}),
	)
}
