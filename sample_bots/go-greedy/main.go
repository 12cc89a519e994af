// Command go-greedy is the greedy sample bot on the Go SDK: stock first, then natural
// cards, then the discard that blocks least (policies.Greedy, the same choices as the
// Python greedy bot).
//
// The referee, or `spite play`, starts it with its address and seat token in the
// environment; to run it by hand against a referee you started:
//
//	go build -o build/bot . && SPITE_ADDRESS=localhost:50051 SPITE_TOKEN=... build/bot
package main

import (
	"context"

	"github.com/spite-arena/spite/sdk/go/policies"
	"github.com/spite-arena/spite/sdk/go/spite"
)

func main() {
	bot := spite.DecideFunc(func(_ context.Context, obs *spite.Observation) (spite.Choice, error) {
		return policies.Greedy(obs), nil
	})
	spite.Main(bot, spite.Options{Name: "go-greedy", Version: "1.0.0"})
}
