package spite

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/spite-arena/spite/sdk/go/spitev1"
)

const (
	// ProtocolVersion is the protocol version this SDK speaks.
	ProtocolVersion = 1
	// MaxMessageBytes is the largest message either side may send.
	MaxMessageBytes = 64 << 10
	// MaxNameBytes is the most the referee keeps of a bot's name and of its version.
	MaxNameBytes = 64
	// TokenMetadataKey is the metadata key that carries the seat token (it is in the
	// Hello message too).
	TokenMetadataKey = "spite-token"
	// DefaultConnectTimeout is how long to wait for the referee to accept the connection.
	DefaultConnectTimeout = 30 * time.Second
	// closeWait is how long to let the referee close the stream itself after MatchOver.
	closeWait = 2 * time.Second
)

// Exit statuses of [Main].
const (
	ExitOK     = 0
	ExitFailed = 1 // the referee refused or ended the stream, or the bot failed
	ExitConfig = 2 // no address or no token
	// ExitInterrupted: SIGINT or SIGTERM stopped the bot.
	ExitInterrupted = 130
)

// Options configure one bot process. [Main] fills the empty fields from the
// environment (see [Options.FromEnv]); [PlayMatch] uses them as they are.
type Options struct {
	// Name is shown in logs and leaderboards (cut to MaxNameBytes); default: the program's name.
	Name string
	// Version is the bot's version (cut to MaxNameBytes).
	Version string
	// Address is the referee's: "host:port" or "unix:/absolute/path" (env SPITE_ADDRESS).
	Address string
	// Token is the seat's secret token (env SPITE_TOKEN, or the file named by SPITE_TOKEN_FILE).
	Token string
	// ConnectTimeout bounds the wait for the referee (env SPITE_CONNECT_TIMEOUT, in
	// seconds); default DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Logger receives the SDK's log; default: stderr at the level SPITE_LOG_LEVEL names
	// (DEBUG, INFO, WARNING (the default) or ERROR).
	Logger *slog.Logger
	// TLS, when set, connects over TLS with this configuration (env SPITE_TLS_CA,
	// SPITE_TLS, SPITE_TLS_CERT, SPITE_TLS_KEY, SPITE_TLS_SERVER_NAME; see [Options.FromEnv]);
	// nil connects in plaintext.
	TLS *tls.Config
}

// A ConfigError says why the bot cannot start: no address, no token.
type ConfigError struct{ Message string }

func (e *ConfigError) Error() string { return e.Message }

// FromEnv returns o with its empty fields filled from the environment:
//
//	SPITE_ADDRESS          the referee: host:port or unix:/path
//	SPITE_TOKEN            the seat's secret token, or
//	SPITE_TOKEN_FILE       a file holding it
//	SPITE_CONNECT_TIMEOUT  seconds to wait for the referee (30)
//	SPITE_LOG_LEVEL        DEBUG, INFO, WARNING (default) or ERROR
//	SPITE_TLS_CA           connect over TLS, trusting the CA certificate (PEM) in this file
//	SPITE_TLS              "1": TLS with the system's roots (also SPITE_ADDRESS=tls:host:port)
//	SPITE_TLS_CERT         mutual TLS: the bot's certificate chain (PEM), with
//	SPITE_TLS_KEY          its private key (PEM)
//	SPITE_TLS_SERVER_NAME  the name the referee's certificate must carry, if not the host dialled
//
// Configuration never comes from the command line: a token in argv is visible to
// every user of the machine.
func (o Options) FromEnv() (Options, error) {
	if o.Name == "" {
		o.Name = filepath.Base(os.Args[0])
	}
	if o.Address == "" {
		o.Address = strings.TrimSpace(os.Getenv("SPITE_ADDRESS"))
		if o.Address == "" {
			return o, &ConfigError{"no referee address: set SPITE_ADDRESS (host:port or unix:/path)"}
		}
	}
	if o.Token == "" {
		token, err := readToken()
		if err != nil {
			return o, err
		}
		o.Token = token
	}
	if o.ConnectTimeout == 0 {
		if text := strings.TrimSpace(os.Getenv("SPITE_CONNECT_TIMEOUT")); text != "" {
			seconds, err := strconv.ParseFloat(text, 64)
			if err != nil || seconds <= 0 {
				return o, &ConfigError{fmt.Sprintf("SPITE_CONNECT_TIMEOUT must be a positive number of seconds, got %q", text)}
			}
			o.ConnectTimeout = time.Duration(seconds * float64(time.Second))
		}
	}
	if o.Logger == nil {
		o.Logger = envLogger()
	}
	if o.TLS == nil {
		config, err := tlsFromEnv(o.Address)
		if err != nil {
			return o, err
		}
		o.TLS = config
	}
	return o, nil
}

// tlsFromEnv reads the SPITE_TLS* variables; nil (plaintext) when none is set.
func tlsFromEnv(address string) (*tls.Config, error) {
	ca, cert, key := strings.TrimSpace(os.Getenv("SPITE_TLS_CA")), strings.TrimSpace(os.Getenv("SPITE_TLS_CERT")),
		strings.TrimSpace(os.Getenv("SPITE_TLS_KEY"))
	name := strings.TrimSpace(os.Getenv("SPITE_TLS_SERVER_NAME"))
	wanted := strings.HasPrefix(address, "tls:")
	switch strings.ToLower(strings.TrimSpace(os.Getenv("SPITE_TLS"))) {
	case "1", "true", "yes":
		wanted = true
	}
	if !wanted && ca == "" && cert == "" && key == "" && name == "" {
		return nil, nil
	}
	if (cert == "") != (key == "") {
		return nil, &ConfigError{"SPITE_TLS_CERT and SPITE_TLS_KEY go together (mutual TLS needs both)"}
	}
	config := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: name}
	if ca != "" {
		data, err := os.ReadFile(ca)
		if err != nil {
			return nil, &ConfigError{fmt.Sprintf("cannot read SPITE_TLS_CA=%s: %v", ca, err)}
		}
		config.RootCAs = x509.NewCertPool()
		if !config.RootCAs.AppendCertsFromPEM(data) {
			return nil, &ConfigError{fmt.Sprintf("SPITE_TLS_CA=%s holds no PEM certificate", ca)}
		}
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, &ConfigError{fmt.Sprintf("cannot load SPITE_TLS_CERT=%s with SPITE_TLS_KEY=%s: %v", cert, key, err)}
		}
		config.Certificates = []tls.Certificate{pair}
	}
	return config, nil
}

func readToken() (string, error) {
	if token := strings.TrimSpace(os.Getenv("SPITE_TOKEN")); token != "" {
		return token, nil
	}
	path := os.Getenv("SPITE_TOKEN_FILE")
	if path == "" {
		return "", &ConfigError{"no seat token: set SPITE_TOKEN, or SPITE_TOKEN_FILE to a file holding it " +
			"(the referee or `spite play` does this for the bots it starts)"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", &ConfigError{fmt.Sprintf("cannot read the seat token from SPITE_TOKEN_FILE=%s: %v", path, err)}
	}
	// The referee's bots get /dev/fd/N, an inherited pipe holding the token once: closed once read.
	if n, err := strconv.Atoi(strings.TrimPrefix(path, "/dev/fd/")); err == nil && strings.HasPrefix(path, "/dev/fd/") {
		_ = os.NewFile(uintptr(n), path).Close()
	}
	token := strings.TrimSpace(string(data))
	if token == "" {
		return "", &ConfigError{fmt.Sprintf("the token file %s is empty", path)}
	}
	return token, nil
}

func envLogger() *slog.Logger {
	level := slog.LevelWarn
	switch name := strings.ToUpper(strings.TrimSpace(os.Getenv("SPITE_LOG_LEVEL"))); name {
	case "DEBUG":
		level = slog.LevelDebug
	case "INFO":
		level = slog.LevelInfo
	case "", "WARNING", "WARN":
	case "ERROR":
		level = slog.LevelError
	default:
		fmt.Fprintf(os.Stderr, "SPITE_LOG_LEVEL=%q is not a logging level; using WARNING\n", name)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("sdk", "spite")
}

// BotSeed returns SPITE_BOT_SEED, the seed the referee hands a bot for its own
// randomness (0 when unset; text that is not a number is hashed), so that a match
// replayed with the same seeds sees the same choices.
func BotSeed() int64 {
	text := strings.TrimSpace(os.Getenv("SPITE_BOT_SEED"))
	if text == "" {
		return 0
	}
	if seed, err := strconv.ParseInt(text, 10, 64); err == nil {
		return seed
	}
	h := fnv.New64a()
	h.Write([]byte(text))
	return int64(h.Sum64())
}

// A RefereeError says the referee refused the bot or ended the stream before the
// match was over.
type RefereeError struct {
	// Code is the stream's gRPC status; codes.OK when the referee closed it without one.
	Code codes.Code
	// Details are the referee's own words, if any.
	Details string
	// Meaning says what the status means for the bot's author.
	Meaning string
}

func (e *RefereeError) Error() string {
	if e.Code == codes.OK {
		return e.Meaning
	}
	details := e.Details
	if details == "" {
		details = "no details"
	}
	return fmt.Sprintf("%s (%s: %s)", e.Meaning, codeName(e.Code), details)
}

// What each status the referee ends a stream with means for the bot's author
// (referee.proto, rpc Play).
var statusMeanings = map[codes.Code]string{
	codes.Unauthenticated:    "the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE)",
	codes.AlreadyExists:      "the referee already has a bot on this seat (is a second copy running?)",
	codes.FailedPrecondition: fmt.Sprintf("the referee does not speak protocol version %d (update the SDK) or refused the seat now", ProtocolVersion),
	codes.InvalidArgument:    "the referee rejected a message from this bot as malformed",
	codes.ResourceExhausted:  fmt.Sprintf("a message exceeded the %d KiB limit", MaxMessageBytes>>10),
	codes.Unavailable:        "the referee is unavailable (not running, or it went away)",
	codes.Canceled:           "the stream was cancelled (the referee stopped the match or shut down)",
	codes.DeadlineExceeded:   "the referee's deadline passed",
	codes.Unimplemented:      "the server at this address is not a Spite Arena referee",
}

func refereeError(err error) error {
	if errors.Is(err, io.EOF) {
		return &RefereeError{Meaning: "the referee closed the stream before the match was over"}
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	meaning, known := statusMeanings[st.Code()]
	if !known {
		meaning = "the referee ended the stream with an error"
	}
	return &RefereeError{Code: st.Code(), Details: st.Message(), Meaning: meaning}
}

// codeName spells a status code as the gRPC specification does: UNAUTHENTICATED.
func codeName(code codes.Code) string {
	var b strings.Builder
	for i, r := range code.String() {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// Main plays one match as the process's main function, configured by opts and the
// environment ([Options.FromEnv]), and exits: status 0 after the match, 2 when the
// address or token is missing, 1 when the referee refused or ended the stream or the
// bot failed (Decide returned an error, or the bot panicked), each failure explained
// on stderr, and 130 on SIGINT or SIGTERM.
func Main(bot Bot, opts Options) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, bot, opts)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, bot Bot, opts Options) int {
	if ladderRequested() { // SPITE_ARENA and SPITE_BOT_KEY: a hosted ladder (arena.go)
		return runLadder(ctx, bot, opts)
	}
	switch os.Getenv("SPITE_STDIO") { // started by the referee on its pipes (frames.go)
	case "protobuf":
		return runPipes(ctx, bot, opts)
	case "json":
		fmt.Fprintf(os.Stderr, "%s: this SDK speaks the referee's pipes only as protobuf frames: set "+
			"stdio_format = \"protobuf\" in bot.toml (or transport = \"grpc\")\n", filepath.Base(os.Args[0]))
		return ExitConfig
	}
	opts, err := opts.FromEnv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", opts.Name, err)
		return ExitConfig
	}
	_, err = PlayMatch(ctx, bot, opts)
	var referee *RefereeError
	switch {
	case err == nil:
		return ExitOK
	case ctx.Err() != nil:
		fmt.Fprintf(os.Stderr, "%s: interrupted\n", opts.Name)
		return ExitInterrupted
	case errors.As(err, &referee):
		fmt.Fprintf(os.Stderr, "%s: %v\n", opts.Name, err)
	default:
		fmt.Fprintf(os.Stderr, "%s: %v; the bot stopped (the referee counts this as a crash)\n", opts.Name, err)
	}
	return ExitFailed
}

// PlayMatch plays one match of bot against the referee at opts.Address with opts.Token,
// and returns its result once the referee has sent MatchOver. Errors from the referee
// are *RefereeError. For embedding (tests, tools); a bot process calls [Main].
func PlayMatch(ctx context.Context, bot Bot, opts Options) (*MatchResult, error) {
	if opts.Address == "" || opts.Token == "" {
		return nil, &ConfigError{"PlayMatch needs Options.Address and Options.Token"}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	address := strings.TrimPrefix(strings.TrimPrefix(opts.Address, "tls://"), "tls:")
	transport := insecure.NewCredentials()
	if opts.TLS != nil {
		transport = credentials.NewTLS(opts.TLS)
	}
	conn, err := grpc.NewClient(address,
		grpc.WithTransportCredentials(transport),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)),
		// Pings notice a referee that vanished (a dead host, a cut connection) instead of
		// hanging; the referee allows one every 5 s.
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 30 * time.Second, Timeout: 10 * time.Second}),
		grpc.WithUserAgent("spite-sdk-go"))
	if err != nil {
		return nil, &ConfigError{fmt.Sprintf("bad referee address %q: %v", opts.Address, err)}
	}
	defer conn.Close()
	if err := waitReady(ctx, conn, opts.ConnectTimeout); err != nil {
		meaning := fmt.Sprintf("cannot reach the referee at %s (waited %v; is it running?)", address, opts.ConnectTimeout)
		if opts.TLS != nil {
			meaning += " over TLS: check SPITE_TLS_CA (the CA that signed the referee's certificate), " +
				"SPITE_TLS_SERVER_NAME, and for mutual TLS SPITE_TLS_CERT/SPITE_TLS_KEY"
		}
		return nil, &RefereeError{Code: codes.Unavailable, Details: err.Error(), Meaning: meaning}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := spitev1.NewRefereeClient(conn).Play(metadata.AppendToOutgoingContext(ctx, TokenMetadataKey, opts.Token))
	if err != nil {
		return nil, refereeError(err)
	}
	s := &session{bot: bot, stream: stream, log: opts.Logger, name: opts.Name}
	hello := &spitev1.Hello{Token: opts.Token, Name: cutString(opts.Name, MaxNameBytes),
		Version: cutString(opts.Version, MaxNameBytes), ProtocolVersion: ProtocolVersion}
	if err := s.send(&spitev1.BotMessage{Body: &spitev1.BotMessage_Hello{Hello: hello}}); err != nil {
		return nil, err
	}
	result, err := s.loop(ctx)
	if err != nil {
		return nil, err
	}
	// The match is over: half-close, and give the referee a moment to end the stream.
	_ = stream.CloseSend()
	timer := time.AfterFunc(closeWait, cancel)
	defer timer.Stop()
	for {
		if _, err := stream.Recv(); err != nil {
			return result, nil
		}
	}
}

func waitReady(ctx context.Context, conn *grpc.ClientConn, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn.Connect()
	for state := conn.GetState(); state != connectivity.Ready; state = conn.GetState() {
		if !conn.WaitForStateChange(ctx, state) {
			return fmt.Errorf("connection %s: %w", strings.ToLower(state.String()), ctx.Err())
		}
	}
	return nil
}

// A session is one match on one Play stream.
type session struct {
	bot    Bot
	stream refereeStream
	log    *slog.Logger
	name   string
	rules  *RuleSet
}

// send writes one message; when the stream has ended, the error is the stream's status.
func (s *session) send(message *spitev1.BotMessage) error {
	err := s.stream.Send(message)
	if err == nil {
		return nil
	}
	if errors.Is(err, io.EOF) { // the status comes from Recv
		for {
			if _, err = s.stream.Recv(); err != nil {
				break
			}
		}
	}
	return refereeError(err)
}

// loop handles the referee's messages until MatchOver. A panic in the bot's code
// becomes an error carrying its stack, so that Main reports it like any failure.
func (s *session) loop(ctx context.Context) (_ *MatchResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the bot panicked: %v\n%s", r, debug.Stack())
		}
	}()
	verbose := s.log.Enabled(ctx, slog.LevelDebug)
	for {
		message, err := s.stream.Recv()
		if err != nil {
			return nil, refereeError(err)
		}
		switch body := message.GetBody().(type) {
		case *spitev1.RefereeMessage_Decision:
			if err := s.decide(ctx, body.Decision, verbose); err != nil {
				return nil, err
			}
		case *spitev1.RefereeMessage_Result:
			result, err := ActionResultFromProto(body.Result)
			if err != nil {
				return nil, fmt.Errorf("protocol error: %w", err)
			}
			if verbose && result.Dropped > 0 {
				s.log.Debug("plan moves dropped", "decision", result.DecisionID, "dropped", result.Dropped)
			}
			if hook, ok := s.bot.(ResultHook); ok {
				hook.OnResult(result)
			} else if !result.OK() {
				s.reportRejected(result)
			}
		case *spitev1.RefereeMessage_Events:
			if hook, ok := s.bot.(EventsHook); ok {
				events, err := EventsFromProto(body.Events.GetEvents())
				if err != nil {
					return nil, fmt.Errorf("protocol error: %w", err)
				}
				hook.OnEvents(int(body.Events.GetGameNumber()), events)
			}
		case *spitev1.RefereeMessage_GameStart:
			if s.rules == nil {
				return nil, errors.New("protocol error: GameStart came before Welcome")
			}
			start := body.GameStart
			s.log.Info("game starts", "game", start.GetGameNumber(), "first_seat", start.GetFirstSeat())
			if hook, ok := s.bot.(GameStartHook); ok {
				obs, err := ObservationFromProto(start.GetObservation(), s.rules)
				if err != nil {
					return nil, fmt.Errorf("protocol error: %w", err)
				}
				hook.OnGameStart(int(start.GetGameNumber()), obs)
			}
		case *spitev1.RefereeMessage_GameOver:
			outcome := OutcomeFromProto(body.GameOver.GetOutcome())
			s.log.Info("game over", "game", body.GameOver.GetGameNumber(), "reason", outcome.Reason)
			if hook, ok := s.bot.(GameOverHook); ok {
				hook.OnGameOver(int(body.GameOver.GetGameNumber()), outcome)
			}
		case *spitev1.RefereeMessage_Welcome:
			welcome := WelcomeFromProto(body.Welcome)
			if welcome.ProtocolVersion != 0 && welcome.ProtocolVersion != ProtocolVersion {
				s.log.Warn("protocol version mismatch", "referee", welcome.ProtocolVersion, "sdk", ProtocolVersion)
			}
			s.rules = welcome.Rules
			s.log.Info("welcome", "seat", welcome.Seat, "match", welcome.MatchID, "rules", welcome.Rules.Name,
				"games", welcome.Games)
			if hook, ok := s.bot.(WelcomeHook); ok {
				hook.OnWelcome(welcome)
			}
		case *spitev1.RefereeMessage_MatchOver:
			result := MatchResultFromProto(body.MatchOver)
			s.log.Info("match over", "reason", result.Reason)
			if hook, ok := s.bot.(MatchOverHook); ok {
				hook.OnMatchOver(result)
			}
			return result, nil
		default:
			s.log.Warn("ignoring a message this SDK does not know (a newer referee?)")
		}
	}
}

// decide answers one DecisionRequest.
func (s *session) decide(ctx context.Context, request *spitev1.DecisionRequest, verbose bool) error {
	received := time.Now()
	if s.rules == nil {
		return errors.New("protocol error: a DecisionRequest came before Welcome")
	}
	obs, err := ObservationFromProto(request.GetObservation(), s.rules)
	if err != nil {
		return fmt.Errorf("protocol error: %w", err)
	}
	decision := Decision{ID: request.GetDecisionId(), Game: int(request.GetGameNumber()), Received: received,
		Deadline: received.Add(millis(request.GetDeadlineMs())), Bank: millis(request.GetBankMs())}
	decideCtx, cancel := context.WithDeadline(context.WithValue(ctx, decisionKey{}, decision), decision.Deadline)
	choice, err := s.bot.Decide(decideCtx, obs)
	cancel()
	if err != nil {
		return fmt.Errorf("Decide failed on decision %d: %w", decision.ID, err)
	}
	action, err := actionFor(decision.ID, choice, len(obs.LegalMoves))
	if err != nil {
		return err
	}
	if err := s.send(&spitev1.BotMessage{Body: &spitev1.BotMessage_Action{Action: action}}); err != nil {
		return err
	}
	if verbose {
		s.log.Debug("decided", "decision", decision.ID, "choice", describe(choice, obs),
			"us", time.Since(received).Microseconds())
	}
	return nil
}

// reportRejected tells the bot's author, on stderr, what the referee rejected and why.
func (s *session) reportRejected(r *ActionResult) {
	line := fmt.Sprintf("%s: decision %d rejected: %v: %s", s.name, r.DecisionID, r.Fault, r.Error)
	if r.Strikes > 0 {
		line += fmt.Sprintf(" (strikes: %d)", r.Strikes)
	}
	if len(r.Applied) > 0 {
		played := make([]string, len(r.Applied))
		for i, m := range r.Applied {
			played[i] = m.String()
		}
		line += "; the referee played " + strings.Join(played, ", ") + " instead"
	}
	fmt.Fprintln(os.Stderr, line)
}

func describe(choice Choice, obs *Observation) string {
	switch c := choice.(type) {
	case noted:
		return describe(c.inner, obs)
	case Index:
		i := int(c)
		if i < 0 {
			i += len(obs.LegalMoves)
		}
		if i >= 0 && i < len(obs.LegalMoves) {
			return fmt.Sprintf("#%d (%v)", int(c), obs.LegalMoves[i])
		}
		return fmt.Sprintf("#%d", int(c))
	case Plan:
		moves := make([]string, len(c))
		for i, m := range c {
			moves[i] = m.String()
		}
		return "plan " + strings.Join(moves, " ")
	}
	return fmt.Sprint(choice)
}

// cutString cuts text to at most limit bytes, never inside a character.
func cutString(text string, limit int) string {
	if len(text) <= limit {
		return text
	}
	for limit > 0 && !utf8.RuneStart(text[limit]) {
		limit--
	}
	return text[:limit]
}
