package spite

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/spite-arena/spite/sdk/go/spitev1"
)

func frame(t *testing.T, message proto.Message) []byte {
	t.Helper()
	body, err := proto.Marshal(message)
	if err != nil {
		t.Fatal(err)
	}
	return append(binary.AppendUvarint(nil, uint64(len(body))), body...)
}

func uvarint(n uint64) []byte { return binary.AppendUvarint(nil, n) }

// The referee's frames, written a few bytes at a time, read back whole and in order,
// then the end of the stream.
func TestFramesReadBackWhateverTheWritesSplit(t *testing.T) {
	var messages []*spitev1.RefereeMessage
	var data []byte
	for i := 0; i < 40; i++ {
		m := &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_Decision{Decision: &spitev1.DecisionRequest{
			DecisionId: uint64(i) << (i % 60), DeadlineMs: 1000, PackedLegalMoves: make([]uint32, i*50)}}}
		messages = append(messages, m)
		data = append(data, frame(t, m)...)
	}
	for _, piece := range []int{1, 2, 3, 7, 64, 4096} {
		reader, writer := io.Pipe()
		go func() {
			for start := 0; start < len(data); start += piece {
				_, _ = writer.Write(data[start:min(start+piece, len(data))])
			}
			_ = writer.Close()
		}()
		stream := newPipeStream(reader, io.Discard)
		for i, want := range messages {
			got, err := stream.Recv()
			if err != nil || !proto.Equal(got, want) {
				t.Fatalf("pieces of %d: message %d: %v, %v", piece, i, got, err)
			}
		}
		if _, err := stream.Recv(); !errors.Is(err, io.EOF) {
			t.Fatalf("pieces of %d: after the last frame %v, want io.EOF", piece, err)
		}
	}
}

// The same hostile streams as the Python SDK's (tests/referee/test_stdio_frames.py), each
// refused with its reason, before a frame over the cap is read.
func TestAnUnreadableStreamIsRefusedWithItsReason(t *testing.T) {
	cases := []struct {
		data  []byte
		words string
	}{
		{uvarint(1 << 40), "a frame of 1099511627776 bytes, over 64 KiB"},
		{append(uvarint(MaxMessageBytes+1), make([]byte, 10)...), "a frame of 65537 bytes, over 64 KiB"},
		{append(bytes.Repeat([]byte{0x80}, 10), 0x01), "a frame length over 10 bytes"},
		{bytes.Repeat([]byte{0xff}, 9), "a frame length cut short"},
		{append(uvarint(100), bytes.Repeat([]byte{0x08}, 10)...), "a frame cut short by the end of the stream (10 of 100 bytes)"},
		{append(uvarint(4), 0xff, 0xff, 0xff, 0xff), "a frame of 4 bytes is not a RefereeMessage"},
	}
	for _, c := range cases {
		_, err := newPipeStream(bytes.NewReader(c.data), io.Discard).Recv()
		var frames *FrameError
		if !errors.As(err, &frames) || !strings.Contains(err.Error(), c.words) || strings.Contains(err.Error(), "\n") {
			t.Errorf("% x: %v, want a FrameError saying %q", c.data[:min(len(c.data), 12)], err, c.words)
		}
	}
}

func TestAFrameOfExactlyTheCapIsAMessage(t *testing.T) {
	var m *spitev1.RefereeMessage
	for n := MaxMessageBytes; n > 0; n-- {
		m = &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_Welcome{Welcome: &spitev1.Welcome{MatchId: strings.Repeat("x", n)}}}
		if proto.Size(m) == MaxMessageBytes {
			break
		}
	}
	if proto.Size(m) != MaxMessageBytes {
		t.Fatalf("built %d bytes", proto.Size(m))
	}
	got, err := newPipeStream(bytes.NewReader(frame(t, m)), io.Discard).Recv()
	if err != nil || !proto.Equal(got, m) {
		t.Fatalf("a frame of %d bytes: %v", proto.Size(m), err)
	}
}

// A Refusal frame ends the session with a RefereeError saying what it means; the bot's
// first frame is its Hello, without a token when none was given.
func TestPlayPipesSaysHelloAndReportsARefusal(t *testing.T) {
	refusal := &spitev1.RefereeMessage{Body: &spitev1.RefereeMessage_Refusal{Refusal: &spitev1.Refusal{
		Code: "UNAUTHENTICATED", Message: "unknown or expired seat token"}}}
	var out bytes.Buffer
	_, err := PlayPipes(t.Context(), nil, Options{Name: "go-greedy", Version: "1.0.0"}, bytes.NewReader(frame(t, refusal)), &out)
	var referee *RefereeError
	if !errors.As(err, &referee) || referee.Code != codes.Unauthenticated ||
		err.Error() != "the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE) (UNAUTHENTICATED: unknown or expired seat token)" {
		t.Fatalf("got %v", err)
	}
	body, err := readFrame(bufio.NewReader(&out))
	if err != nil {
		t.Fatal(err)
	}
	hello := &spitev1.BotMessage{}
	if err := proto.Unmarshal(body, hello); err != nil || hello.GetHello().GetName() != "go-greedy" || hello.GetHello().GetToken() != "" {
		t.Fatalf("first frame %v (%v)", hello, err)
	}
}
