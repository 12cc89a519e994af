package spite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/spite-arena/spite/sdk/go/spitev1"
)

// A referee for the tests: a real gRPC server whose Play handler is the test's.
type fakeReferee struct {
	spitev1.UnimplementedRefereeServer
	play func(stream grpc.BidiStreamingServer[spitev1.BotMessage, spitev1.RefereeMessage]) error
}

func (f *fakeReferee) Play(stream grpc.BidiStreamingServer[spitev1.BotMessage, spitev1.RefereeMessage]) error {
	return f.play(stream)
}

// startReferee serves play on network ("unix" or "tcp") and returns the address a bot dials.
func startReferee(t *testing.T, network string,
	play func(grpc.BidiStreamingServer[spitev1.BotMessage, spitev1.RefereeMessage]) error) string {
	t.Helper()
	address := "127.0.0.1:0"
	if network == "unix" {
		address = filepath.Join(t.TempDir(), "referee.sock")
	}
	listener, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	server := grpc.NewServer()
	spitev1.RegisterRefereeServer(server, &fakeReferee{play: play})
	go server.Serve(listener)
	t.Cleanup(server.Stop)
	if network == "unix" {
		return "unix:" + address
	}
	return listener.Addr().String()
}

var testRules = &spitev1.RuleSet{Name: "standard", Players: 2, CentrePiles: 4, DiscardPiles: 4, WildRanks: []uint32{0, 13}}

func send(stream grpc.BidiStreamingServer[spitev1.BotMessage, spitev1.RefereeMessage], m *spitev1.RefereeMessage) {
	_ = stream.Send(m)
}

// A recording bot: plays the last legal move and notes every call.
type recorder struct {
	calls     []string
	decisions []Decision
	deadlines []time.Time
}

func (r *recorder) Decide(ctx context.Context, obs *Observation) (Choice, error) {
	d, _ := DecisionFromContext(ctx)
	deadline, _ := ctx.Deadline()
	r.decisions, r.deadlines = append(r.decisions, d), append(r.deadlines, deadline)
	r.calls = append(r.calls, fmt.Sprintf("decide %d %v", d.ID, obs.LegalMoves))
	return WithDebug(Index(-1), "last"), nil
}
func (r *recorder) OnWelcome(w *Welcome) {
	r.calls = append(r.calls, fmt.Sprintf("welcome seat %d %s", w.Seat, w.Rules.Name))
}
func (r *recorder) OnGameStart(game int, obs *Observation) {
	r.calls = append(r.calls, fmt.Sprintf("start %d hand %v", game, obs.Hand))
}
func (r *recorder) OnEvents(game int, events []Event) {
	r.calls = append(r.calls, fmt.Sprintf("events %d %v", game, events[0].Kind))
}
func (r *recorder) OnResult(res *ActionResult) {
	r.calls = append(r.calls, fmt.Sprintf("result %d %v", res.DecisionID, res.Applied))
}
func (r *recorder) OnGameOver(game int, o *Outcome) {
	r.calls = append(r.calls, fmt.Sprintf("over %d %v", game, o.Ending))
}
func (r *recorder) OnMatchOver(m *MatchResult) {
	r.calls = append(r.calls, fmt.Sprintf("match %v", m.Points))
}

func TestWholeMatch(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		t.Run(network, func(t *testing.T) {
			seen := make(chan string, 10)
			address := startReferee(t, network, func(stream grpc.BidiStreamingServer[spitev1.BotMessage, spitev1.RefereeMessage]) error {
				md, _ := metadata.FromIncomingContext(stream.Context())
				first, err := stream.Recv()
				if err != nil {
					return err
				}
				hello := first.GetHello()
				seen <- fmt.Sprintf("metadata %v hello %s %s %s %d", md.Get(TokenMetadataKey), hello.GetToken(),
					hello.GetName(), hello.GetVersion(), hello.GetProtocolVersion())
				send(stream, &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_Welcome{Welcome: &spitev1.Welcome{
					Seat: 1, Rules: testRules, ProtocolVersion: 1, Games: 1}}})
				send(stream, &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_GameStart{GameStart: &spitev1.GameStart{
					Observation: &spitev1.Observation{Seat: 1, Hand: []uint32{3, 9}}}}})
				send(stream, &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_Events{Events: &spitev1.EventBatch{
					Events: []*spitev1.Event{{Kind: spitev1.EventKind_EVENT_KIND_DEAL, Seat: 0}}}}})
				send(stream, &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_Decision{Decision: &spitev1.DecisionRequest{
					DecisionId: 41, DeadlineMs: 1500, BankMs: 3000, Observation: &spitev1.Observation{Seat: 1, ToMove: 1,
						LegalMoves: []*spitev1.Move{wireMove("H:3>C0"), wireMove("H:9>D0")}}}}})
				answer, err := stream.Recv()
				if err != nil {
					return err
				}
				action := answer.GetAction()
				seen <- fmt.Sprintf("action %d index %d debug %q", action.GetDecisionId(), action.GetMoveIndex(), action.GetDebug())
				send(stream, &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_Result{Result: &spitev1.ActionResult{
					DecisionId: 41, Applied: []*spitev1.Move{wireMove("H:9>D0")}}}})
				send(stream, &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_GameOver{GameOver: &spitev1.GameOver{
					Outcome: &spitev1.Outcome{Ending: spitev1.Ending_ENDING_STALEMATE, Offender: -1}}}})
				send(stream, &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_MatchOver{MatchOver: &spitev1.MatchOver{
					Points: []int32{0, 0}, Reason: "tied"}}})
				// The bot half-closes after MatchOver.
				if _, err := stream.Recv(); err != io.EOF {
					seen <- fmt.Sprintf("after MatchOver: %v", err)
				} else {
					seen <- "half-closed"
				}
				return nil
			})
			bot := &recorder{}
			result, err := PlayMatch(context.Background(), bot, Options{Name: "rec", Version: "2.0", Address: address, Token: "tok"})
			if err != nil {
				t.Fatal(err)
			}
			if result.Reason != "tied" || !reflect.DeepEqual(result.Points, []int{0, 0}) {
				t.Errorf("result = %+v", result)
			}
			want := []string{
				"welcome seat 1 standard",
				"start 0 hand [3 9]",
				"events 0 DEAL",
				"decide 41 [H:3>C0 H:9>D0]",
				"result 41 [H:9>D0]",
				"over 0 stalemate",
				"match [0 0]",
			}
			if !reflect.DeepEqual(bot.calls, want) {
				t.Errorf("calls:\n got %q\nwant %q", bot.calls, want)
			}
			for _, line := range []string{"metadata [tok] hello tok rec 2.0 1", `action 41 index 1 debug "last"`, "half-closed"} {
				if got := <-seen; got != line {
					t.Errorf("referee saw %q, want %q", got, line)
				}
			}
			d := bot.decisions[0]
			if d.ID != 41 || d.Deadline.Sub(d.Received) != 1500*time.Millisecond || d.Bank != 3*time.Second ||
				!bot.deadlines[0].Equal(d.Deadline) || !d.FinalDeadline().Equal(d.Deadline.Add(3*time.Second)) {
				t.Errorf("decision = %+v, ctx deadline %v", d, bot.deadlines[0])
			}
		})
	}
}

func TestRefereeRefuses(t *testing.T) {
	address := startReferee(t, "unix", func(stream grpc.BidiStreamingServer[spitev1.BotMessage, spitev1.RefereeMessage]) error {
		return status.Error(codes.Unauthenticated, "unknown seat token")
	})
	_, err := PlayMatch(context.Background(), &recorder{}, Options{Address: address, Token: "wrong"})
	var referee *RefereeError
	if !errors.As(err, &referee) || referee.Code != codes.Unauthenticated {
		t.Fatalf("err = %v, want a RefereeError with UNAUTHENTICATED", err)
	}
	if !strings.Contains(err.Error(), "refused the seat token") || !strings.Contains(err.Error(), "(UNAUTHENTICATED: unknown seat token)") {
		t.Errorf("message = %q", err)
	}
}

func TestRefereeClosesEarly(t *testing.T) {
	address := startReferee(t, "unix", func(stream grpc.BidiStreamingServer[spitev1.BotMessage, spitev1.RefereeMessage]) error {
		_, err := stream.Recv()
		return err
	})
	_, err := PlayMatch(context.Background(), &recorder{}, Options{Address: address, Token: "t"})
	if err == nil || !strings.Contains(err.Error(), "closed the stream before the match was over") {
		t.Errorf("err = %v", err)
	}
}

func TestDecideErrorStopsTheBot(t *testing.T) {
	address := startReferee(t, "unix", func(stream grpc.BidiStreamingServer[spitev1.BotMessage, spitev1.RefereeMessage]) error {
		if _, err := stream.Recv(); err != nil {
			return err
		}
		send(stream, &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_Welcome{Welcome: &spitev1.Welcome{Rules: testRules}}})
		send(stream, &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_Decision{Decision: &spitev1.DecisionRequest{
			DecisionId: 1, DeadlineMs: 100, Observation: &spitev1.Observation{LegalMoves: []*spitev1.Move{wireMove("pass")}}}}})
		_, err := stream.Recv()
		return err
	})
	boom := errors.New("boom")
	bot := DecideFunc(func(context.Context, *Observation) (Choice, error) { return nil, boom })
	_, err := PlayMatch(context.Background(), bot, Options{Address: address, Token: "t"})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want it to wrap the bot's error", err)
	}
}

func TestPanicBecomesAnError(t *testing.T) {
	address := startReferee(t, "unix", func(stream grpc.BidiStreamingServer[spitev1.BotMessage, spitev1.RefereeMessage]) error {
		if _, err := stream.Recv(); err != nil {
			return err
		}
		send(stream, &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_Welcome{Welcome: &spitev1.Welcome{Rules: testRules}}})
		send(stream, &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_Decision{Decision: &spitev1.DecisionRequest{
			DecisionId: 1, DeadlineMs: 100, Observation: &spitev1.Observation{LegalMoves: []*spitev1.Move{wireMove("pass")}}}}})
		_, err := stream.Recv()
		return err
	})
	bot := DecideFunc(func(_ context.Context, obs *Observation) (Choice, error) { return obs.LegalMoves[5], nil })
	_, err := PlayMatch(context.Background(), bot, Options{Address: address, Token: "t"})
	if err == nil || !strings.Contains(err.Error(), "the bot panicked: runtime error: index out of range") ||
		!strings.Contains(err.Error(), "client_test.go") {
		t.Errorf("err = %v", err)
	}
}

func TestNoReferee(t *testing.T) {
	address := "unix:" + filepath.Join(t.TempDir(), "nobody.sock")
	started := time.Now()
	_, err := PlayMatch(context.Background(), &recorder{}, Options{Address: address, Token: "t", ConnectTimeout: 300 * time.Millisecond})
	var referee *RefereeError
	if !errors.As(err, &referee) || !strings.Contains(err.Error(), "cannot reach the referee") {
		t.Errorf("err = %v", err)
	}
	if elapsed := time.Since(started); elapsed > 5*time.Second {
		t.Errorf("gave up after %v, want about the 300 ms connect timeout", elapsed)
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv("SPITE_ADDRESS", "")
	t.Setenv("SPITE_TOKEN", "")
	t.Setenv("SPITE_TOKEN_FILE", "")
	if code := run(context.Background(), &recorder{}, Options{}); code != ExitConfig {
		t.Errorf("no address: exit %d, want %d", code, ExitConfig)
	}
	t.Setenv("SPITE_ADDRESS", "localhost:1")
	if _, err := (Options{}).FromEnv(); err == nil || !strings.Contains(err.Error(), "no seat token") {
		t.Errorf("no token: %v", err)
	}
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SPITE_TOKEN_FILE", file)
	t.Setenv("SPITE_CONNECT_TIMEOUT", "1.5")
	opts, err := (Options{Name: "x"}).FromEnv()
	if err != nil || opts.Token != "secret" || opts.Address != "localhost:1" || opts.ConnectTimeout != 1500*time.Millisecond {
		t.Errorf("FromEnv = %+v, %v", opts, err)
	}
	t.Setenv("SPITE_TOKEN", "direct")
	if opts, _ := (Options{}).FromEnv(); opts.Token != "direct" {
		t.Errorf("SPITE_TOKEN should win over SPITE_TOKEN_FILE, got %q", opts.Token)
	}
	t.Setenv("SPITE_CONNECT_TIMEOUT", "soon")
	if _, err := (Options{}).FromEnv(); err == nil {
		t.Error("a bad SPITE_CONNECT_TIMEOUT was accepted")
	}
	t.Setenv("SPITE_BOT_SEED", "42")
	if BotSeed() != 42 {
		t.Errorf("BotSeed() = %d, want 42", BotSeed())
	}
}

func TestRefereeRefusesThroughMain(t *testing.T) {
	address := startReferee(t, "unix", func(stream grpc.BidiStreamingServer[spitev1.BotMessage, spitev1.RefereeMessage]) error {
		return status.Error(codes.AlreadyExists, "seat 0 is already connected")
	})
	t.Setenv("SPITE_ADDRESS", address)
	t.Setenv("SPITE_TOKEN", "t")
	if code := run(context.Background(), &recorder{}, Options{Name: "x"}); code != ExitFailed {
		t.Errorf("exit %d, want %d", code, ExitFailed)
	}
}
