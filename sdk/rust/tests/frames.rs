//! Protobuf frames on the referee's pipes: frames split every which way, the same hostile
//! streams as the Python and Go SDKs' (tests/referee/test_stdio_frames.py,
//! sdk/go/spite/frames_test.go), and whole sessions through `play_pipes`.

use std::io::{BufReader, Cursor, Read};

use prost::Message;
use spite::proto::{self as pb, referee_message::Body};
use spite::{Bot, BotError, Choice, Code, Decision, Error, MAX_MESSAGE_BYTES, Observation, Options, play_pipes};

fn varint(mut n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
    out
}

fn frame(message: &pb::RefereeMessage) -> Vec<u8> {
    message.encode_length_delimited_to_vec()
}

/// `data`, at most `piece` bytes per read.
struct InPieces {
    data: Cursor<Vec<u8>>,
    piece: usize,
}

impl Read for InPieces {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.piece);
        self.data.read(&mut buf[..n])
    }
}

fn in_pieces(data: &[u8], piece: usize) -> BufReader<InPieces> {
    BufReader::with_capacity(16, InPieces { data: Cursor::new(data.to_vec()), piece })
}

/// The BotMessages in `data`, a bot's frames.
fn bot_messages(data: &[u8]) -> Vec<pb::BotMessage> {
    let mut rest = data;
    let mut messages = Vec::new();
    while !rest.is_empty() {
        messages.push(pb::BotMessage::decode_length_delimited(&mut rest).expect("a BotMessage frame"));
    }
    messages
}

/// Plays the last legal move.
struct Last;

impl Bot for Last {
    fn decide(&mut self, _: &Observation, _: &Decision) -> Result<Choice, BotError> {
        Ok(Choice::Index(-1).with_debug("last"))
    }
}

fn welcome() -> pb::RefereeMessage {
    let rules = pb::RuleSet {
        name: "standard".into(),
        players: 2,
        centre_piles: 4,
        discard_piles: 4,
        wild_ranks: vec![0, 13],
        ..Default::default()
    };
    pb::RefereeMessage {
        body: Some(Body::Welcome(pb::Welcome {
            seat: 1,
            rules: Some(rules),
            protocol_version: 1,
            games: 1,
            ..Default::default()
        })),
    }
}

fn decision(id: u64, legal: usize) -> pb::RefereeMessage {
    let play =
        pb::Move { kind: pb::MoveKind::Play as i32, source: pb::Source::Hand as i32, card: 1, ..Default::default() };
    let observation = pb::Observation { seat: 1, to_move: 1, legal_moves: vec![play; legal], ..Default::default() };
    pb::RefereeMessage {
        body: Some(Body::Decision(pb::DecisionRequest {
            decision_id: id,
            deadline_ms: 1000,
            observation: Some(observation),
            ..Default::default()
        })),
    }
}

fn match_over() -> pb::RefereeMessage {
    pb::RefereeMessage {
        body: Some(Body::MatchOver(pb::MatchOver {
            points: vec![0, 1],
            reason: "seat 1 won".into(),
            ..Default::default()
        })),
    }
}

fn play(data: &[u8], piece: usize, options: &Options) -> (Result<spite::MatchResult, Error>, Vec<pb::BotMessage>) {
    let mut out = Vec::new();
    let result = play_pipes(&mut Last, options, &mut in_pieces(data, piece), &mut out);
    (result, bot_messages(&out))
}

#[test]
fn plays_a_match_on_frames_whatever_the_reads_split() {
    let mut data = frame(&welcome());
    for id in 0..40u64 {
        data.extend(frame(&decision(id << (id % 60), 1 + id as usize * 30)));
    }
    data.extend(frame(&match_over()));
    for piece in [1, 2, 3, 7, 64, 4096] {
        let (result, sent) = play(&data, piece, &Options::new("pipe-bot", "1.2.3"));
        assert_eq!(result.expect("the match").reason, "seat 1 won", "pieces of {piece}");
        assert_eq!(sent.len(), 41, "pieces of {piece}");
        let Some(pb::bot_message::Body::Hello(hello)) = &sent[0].body else { panic!("first {:?}", sent[0]) };
        assert_eq!((hello.name.as_str(), hello.version.as_str(), hello.token.as_str()), ("pipe-bot", "1.2.3", ""));
        for (id, message) in (0..40u64).zip(&sent[1..]) {
            let Some(pb::bot_message::Body::Action(action)) = &message.body else { panic!("{message:?}") };
            assert_eq!(action.decision_id, id << (id % 60));
            assert_eq!(action.debug, "last");
        }
    }
}

#[test]
fn a_stream_that_ends_before_match_over_is_the_referee_closing_early() {
    let (result, _) = play(&frame(&welcome()), 1 << 16, &Options::new("b", "1"));
    let error = result.expect_err("no MatchOver");
    assert!(matches!(error, Error::Referee(_)), "{error}");
    assert_eq!(error.to_string(), "the referee closed the stream before the match was over");
}

#[test]
fn the_same_hostile_streams_as_the_other_sdks_are_refused_with_their_reason_in_one_line() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (varint(1 << 40), "a frame of 1099511627776 bytes, over 64 KiB"),
        ([varint(MAX_MESSAGE_BYTES as u64 + 1), vec![0; 10]].concat(), "a frame of 65537 bytes, over 64 KiB"),
        ([vec![0x80; 10], vec![1]].concat(), "a frame length over 10 bytes"),
        (vec![0xff; 9], "a frame length cut short"),
        ([varint(100), vec![8; 10]].concat(), "a frame cut short by the end of the stream (10 of 100 bytes)"),
        ([varint(4), vec![0xff; 4]].concat(), "a frame of 4 bytes is not a RefereeMessage"),
    ];
    for (data, words) in cases {
        for piece in [1, 3, 1 << 16] {
            let (result, sent) = play(&data, piece, &Options::new("b", "1"));
            let error = result.expect_err(words);
            let text = error.to_string();
            assert!(matches!(error, Error::Protocol(_)), "{text}");
            assert!(text.starts_with("the referee's frames are unreadable: ") && text.contains(words), "{text}");
            assert!(!text.contains('\n'), "{text}");
            assert_eq!(sent.len(), 1, "the Hello only");
        }
    }
}

#[test]
fn a_frame_of_exactly_the_cap_is_a_message() {
    let mut message = welcome();
    for n in (1..=MAX_MESSAGE_BYTES).rev() {
        message = pb::RefereeMessage {
            body: Some(Body::Welcome(pb::Welcome { match_id: "x".repeat(n), ..Default::default() })),
        };
        if message.encoded_len() == MAX_MESSAGE_BYTES {
            break;
        }
    }
    assert_eq!(message.encoded_len(), MAX_MESSAGE_BYTES);
    // A Welcome without rules, then the end: read whole (the session then asks for MatchOver).
    let (result, _) = play(&frame(&message), 1 << 16, &Options::new("b", "1"));
    assert_eq!(
        result.expect_err("no MatchOver").to_string(),
        "the referee closed the stream before the match was over"
    );
}

#[test]
fn a_refusal_frame_is_the_referee_error_its_code_means() {
    let refusal = pb::RefereeMessage {
        body: Some(Body::Refusal(pb::Refusal {
            code: "UNAUTHENTICATED".into(),
            message: "unknown or expired seat token".into(),
        })),
    };
    let options = Options { token: "tok".into(), ..Options::new("b", "1") };
    let (result, sent) = play(&frame(&refusal), 1 << 16, &options);
    let Err(Error::Referee(error)) = result else { panic!("{result:?}") };
    assert_eq!(error.code, Some(Code::Unauthenticated));
    assert_eq!(
        error.to_string(),
        "the referee refused the seat token (check SPITE_TOKEN / SPITE_TOKEN_FILE) \
        (UNAUTHENTICATED: unknown or expired seat token)"
    );
    let Some(pb::bot_message::Body::Hello(hello)) = &sent[0].body else { panic!("{sent:?}") };
    assert_eq!(hello.token, "tok");
}
