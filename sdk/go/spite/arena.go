package spite

// Joining a hosted ladder (`spite serve`, docs/hosting.md) as a remote bot: when the
// environment has SPITE_ARENA (the competition's gRPC address) and SPITE_BOT_KEY (the
// entrant's key), [Main] joins the lobby (Arena.Join, proto/spite/v1/arena.proto) instead
// of playing one match, and plays every seat it is assigned over Referee.Play on the same
// address until stopped. SPITE_ARENA_CAPACITY (default 1, at most 64) is how many games it
// plays at once: above 1, the bot's Decide must be safe for concurrent use.

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/spite-arena/spite/sdk/go/spitev1"
)

// BotKeyMetadataKey carries the entrant's key on Arena.Join (it is in the request too).
const BotKeyMetadataKey = "spite-bot-key"

func ladderRequested() bool {
	return strings.TrimSpace(os.Getenv("SPITE_ARENA")) != "" && strings.TrimSpace(os.Getenv("SPITE_BOT_KEY")) != ""
}

// runLadder joins and plays until ctx ends; its exit status as [Main] gives it.
func runLadder(ctx context.Context, bot Bot, opts Options) int {
	address := strings.TrimSpace(os.Getenv("SPITE_ARENA"))
	key := strings.TrimSpace(os.Getenv("SPITE_BOT_KEY"))
	if opts.Name == "" {
		opts.Name = "bot"
	}
	capacity := 1
	if text := strings.TrimSpace(os.Getenv("SPITE_ARENA_CAPACITY")); text != "" {
		n, err := strconv.Atoi(text)
		if err != nil || n < 1 || n > 64 {
			fmt.Fprintf(os.Stderr, "%s: SPITE_ARENA_CAPACITY must be a whole number in 1..64, got %q\n", opts.Name, text)
			return ExitConfig
		}
		capacity = n
	}
	config, err := tlsFromEnv(address)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", opts.Name, err)
		return ExitConfig
	}
	opts.TLS, opts.Address = config, address
	if opts.Logger == nil {
		opts.Logger = envLogger()
	}
	transport := insecure.NewCredentials()
	if config != nil {
		transport = credentials.NewTLS(config)
	}
	dial := strings.TrimPrefix(strings.TrimPrefix(address, "tls://"), "tls:")
	var games sync.WaitGroup
	defer games.Wait()
	waits := []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second}
	for failures := 0; ; failures++ {
		refused := joinOnce(ctx, bot, opts, dial, transport, key, capacity, &games)
		if refused != nil {
			fmt.Fprintf(os.Stderr, "%s: the arena refused to let the bot join: %s\n", opts.Name, refused.Message())
			return ExitFailed
		}
		wait := waits[min(failures, len(waits)-1)]
		fmt.Fprintf(os.Stderr, "%s: not joined to the arena at %s; trying again in %v\n", opts.Name, address, wait)
		select {
		case <-ctx.Done():
			return ExitInterrupted
		case <-time.After(wait):
		}
	}
}

// joinOnce holds one Join stream open, starting a game per assignment; it returns the
// status when the server refused the bot for good (nil when the stream just ended).
func joinOnce(ctx context.Context, bot Bot, opts Options, dial string, transport credentials.TransportCredentials,
	key string, capacity int, games *sync.WaitGroup) *status.Status {
	conn, err := grpc.NewClient(dial, grpc.WithTransportCredentials(transport), grpc.WithUserAgent("spite-sdk-go"))
	if err != nil {
		return status.New(codes.InvalidArgument, fmt.Sprintf("bad arena address %q: %v", dial, err))
	}
	defer conn.Close()
	stream, err := spitev1.NewArenaClient(conn).Join(metadata.AppendToOutgoingContext(ctx, BotKeyMetadataKey, key),
		&spitev1.JoinRequest{Key: key, BotName: cutString(opts.Name, 40), BotVersion: cutString(opts.Version, 64),
			Capacity: uint32(capacity)})
	if err != nil {
		return nil
	}
	for {
		assignment, err := stream.Recv()
		if err != nil {
			switch s, _ := status.FromError(err); s.Code() {
			case codes.Unauthenticated, codes.InvalidArgument, codes.ResourceExhausted, codes.FailedPrecondition:
				return s
			}
			return nil
		}
		seat := opts
		seat.Token = assignment.GetToken()
		games.Add(1)
		go func(matchID string) {
			defer games.Done()
			if _, err := PlayMatch(ctx, bot, seat); err != nil && ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "%s: game %s: %v\n", opts.Name, matchID, err)
			}
		}(assignment.GetMatchId())
	}
}
