package spite

// Protobuf frames on the referee's pipes (docs/protocol.md, "Protobuf frames"): a bot whose
// manifest says transport = "stdio" and stdio_format = "protobuf" is started by the
// referee with SPITE_STDIO=protobuf, and exchanges the same messages as on gRPC, each one
// its size as a varint, then its protobuf bytes: BotMessages on stdout, RefereeMessages on
// stdin. [Main] plays that way by itself when SPITE_STDIO=protobuf (no SPITE_ADDRESS).

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/spite-arena/spite/sdk/go/spitev1"
)

// maxVarintBytes is the longest varint a frame's size may take.
const maxVarintBytes = binary.MaxVarintLen64

// A FrameError says the referee's stream of frames cannot be read: a size over the cap,
// a size varint over 10 bytes, a frame cut short, bytes that are no RefereeMessage.
type FrameError struct{ Message string }

func (e *FrameError) Error() string { return "the referee's frames are unreadable: " + e.Message }

// refereeStream is what a session plays on: a gRPC Play stream, or the referee's pipes.
type refereeStream interface {
	Send(*spitev1.BotMessage) error
	Recv() (*spitev1.RefereeMessage, error)
	CloseSend() error
}

// pipeStream is a refereeStream on protobuf frames: RefereeMessages read from in,
// BotMessages written to out.
type pipeStream struct {
	in  *bufio.Reader
	out *bufio.Writer
}

func newPipeStream(in io.Reader, out io.Writer) *pipeStream {
	return &pipeStream{in: bufio.NewReaderSize(in, 1<<16), out: bufio.NewWriterSize(out, 1<<12)}
}

// Send writes message as one frame and flushes it.
func (p *pipeStream) Send(message *spitev1.BotMessage) error {
	body, err := proto.Marshal(message)
	if err != nil {
		return err
	}
	var size [maxVarintBytes]byte
	n := binary.PutUvarint(size[:], uint64(len(body)))
	if _, err := p.out.Write(size[:n]); err != nil {
		return err
	}
	if _, err := p.out.Write(body); err != nil {
		return err
	}
	return p.out.Flush()
}

// CloseSend does nothing: the referee closes the pipes.
func (p *pipeStream) CloseSend() error { return nil }

// Recv reads the next frame: io.EOF at the end of the stream between frames, a
// *FrameError for an unreadable stream, a *RefereeError for a Refusal.
func (p *pipeStream) Recv() (*spitev1.RefereeMessage, error) {
	body, err := readFrame(p.in)
	if err != nil {
		return nil, err
	}
	message := &spitev1.RefereeMessage{}
	if err := proto.Unmarshal(body, message); err != nil {
		return nil, &FrameError{fmt.Sprintf("a frame of %d bytes is not a RefereeMessage (%v)", len(body), err)}
	}
	if refusal := message.GetRefusal(); refusal != nil {
		code := codeFromName(refusal.GetCode())
		meaning, known := statusMeanings[code]
		if !known {
			meaning = "the referee refused the bot"
		}
		return nil, &RefereeError{Code: code, Details: refusal.GetMessage(), Meaning: meaning}
	}
	return message, nil
}

// readFrame reads one frame's bytes, checking its size before reading any of it.
func readFrame(in *bufio.Reader) ([]byte, error) {
	var size uint64
	for i := 0; ; i++ {
		if i == maxVarintBytes {
			return nil, &FrameError{"a frame length over 10 bytes"}
		}
		b, err := in.ReadByte()
		if err != nil {
			if i == 0 && errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			if errors.Is(err, io.EOF) {
				return nil, &FrameError{"a frame length cut short"}
			}
			return nil, err
		}
		if i == maxVarintBytes-1 && b > 1 && b < 0x80 {
			return nil, &FrameError{"a frame length over 64 bits"}
		}
		size |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			break
		}
	}
	if size > MaxMessageBytes {
		return nil, &FrameError{fmt.Sprintf("a frame of %d bytes, over %d KiB", size, MaxMessageBytes>>10)}
	}
	body := make([]byte, size)
	if n, err := io.ReadFull(in, body); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &FrameError{fmt.Sprintf("a frame cut short by the end of the stream (%d of %d bytes)", n, size)}
		}
		return nil, err
	}
	return body, nil
}

// codeFromName is the status code a Refusal names (UNAUTHENTICATED), Unknown for any other.
func codeFromName(name string) codes.Code {
	for code := codes.OK; code <= codes.Unauthenticated; code++ {
		if codeName(code) == name {
			return code
		}
	}
	return codes.Unknown
}

// PlayPipes plays one match on protobuf frames: RefereeMessages from in, BotMessages to
// out. Options.Token may be empty (the pipes say which seat this is). For embedding
// (tests, tools); a bot process calls [Main], which plays on stdin and stdout when
// SPITE_STDIO=protobuf.
func PlayPipes(ctx context.Context, bot Bot, opts Options, in io.Reader, out io.Writer) (*MatchResult, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	stream := newPipeStream(in, out)
	s := &session{bot: bot, stream: stream, log: opts.Logger, name: opts.Name}
	hello := &spitev1.Hello{Token: opts.Token, Name: cutString(opts.Name, MaxNameBytes),
		Version: cutString(opts.Version, MaxNameBytes), ProtocolVersion: ProtocolVersion}
	if err := s.send(&spitev1.BotMessage{Body: &spitev1.BotMessage_Hello{Hello: hello}}); err != nil {
		return nil, err
	}
	return s.loop(ctx)
}

// pipesFromEnv fills opts for the referee's pipes (the token is optional there) and
// returns the protocol's own stdout: the process's stdout then goes to stderr, so that a
// bot's fmt.Println lands in its log instead of between two frames.
func pipesFromEnv(opts Options) (Options, io.Writer, error) {
	if opts.Name == "" {
		opts.Name = filepath.Base(os.Args[0])
	}
	if opts.Token == "" && (os.Getenv("SPITE_TOKEN") != "" || os.Getenv("SPITE_TOKEN_FILE") != "") {
		token, err := readToken()
		if err != nil {
			return opts, nil, err
		}
		opts.Token = token
	}
	if opts.Logger == nil {
		opts.Logger = envLogger()
	}
	protocol, err := syscall.Dup(1)
	if err != nil {
		return opts, nil, err
	}
	if err := syscall.Dup2(2, 1); err != nil {
		return opts, nil, err
	}
	return opts, os.NewFile(uintptr(protocol), "spite-protocol"), nil
}

// runPipes is [Main] on the referee's pipes (SPITE_STDIO=protobuf).
func runPipes(ctx context.Context, bot Bot, opts Options) int {
	opts, out, err := pipesFromEnv(opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", opts.Name, err)
		return ExitConfig
	}
	_, err = PlayPipes(ctx, bot, opts, os.Stdin, out)
	var referee *RefereeError
	var frames *FrameError
	switch {
	case err == nil:
		return ExitOK
	case ctx.Err() != nil:
		fmt.Fprintf(os.Stderr, "%s: interrupted\n", opts.Name)
		return ExitInterrupted
	case errors.As(err, &referee), errors.As(err, &frames):
		fmt.Fprintf(os.Stderr, "%s: %v\n", opts.Name, err)
	default:
		fmt.Fprintf(os.Stderr, "%s: %v; the bot stopped (the referee counts this as a crash)\n", opts.Name, err)
	}
	return ExitFailed
}
