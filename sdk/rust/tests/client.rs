//! The session against a real gRPC server standing in for the referee.

mod common;

use std::time::{Duration, Instant};

use common::{Network, ask_one_decision, rules, socket_path, start_referee, wire};
use spite::proto::{self as pb, referee_message::Body};
use spite::{
    ActionResult, Bot, BotError, Choice, Code, Decision, Error, Event, MatchResult, Observation, Options, Outcome,
    Welcome, play_match,
};
use tokio::sync::mpsc;
use tonic::Status;

/// A bot that plays the last legal move and notes every call.
#[derive(Default)]
struct Recorder {
    calls: Vec<String>,
    decisions: Vec<Decision>,
}

impl Bot for Recorder {
    fn decide(&mut self, obs: &Observation, decision: &Decision) -> Result<Choice, BotError> {
        let moves: Vec<String> = obs.legal_moves.iter().map(ToString::to_string).collect();
        self.calls.push(format!("decide {} [{}]", decision.id, moves.join(" ")));
        self.decisions.push(*decision);
        Ok(Choice::Index(-1).with_debug("last"))
    }
    fn on_welcome(&mut self, w: &Welcome) {
        self.calls.push(format!("welcome seat {} {}", w.seat, w.rules.name));
    }
    fn on_game_start(&mut self, game: u32, obs: &Observation) {
        self.calls.push(format!("start {game} hand {:?}", obs.hand.iter().map(|c| c.0).collect::<Vec<_>>()));
    }
    fn on_events(&mut self, game: u32, events: &[Event]) {
        self.calls.push(format!("events {game} {:?}", events[0].kind));
    }
    fn on_result(&mut self, r: &ActionResult) {
        self.calls.push(format!("result {} {}", r.decision_id, r.applied[0]));
    }
    fn on_game_over(&mut self, game: u32, o: &Outcome) {
        self.calls.push(format!("over {game} {}", o.ending));
    }
    fn on_match_over(&mut self, m: &MatchResult) {
        self.calls.push(format!("match {:?}", m.points));
    }
}

fn options(address: &str) -> Options {
    Options { address: address.into(), token: "tok".into(), ..Options::new("rec", "2.0") }
}

async fn whole_match(network: Network) {
    let (seen, mut saw) = mpsc::unbounded_channel::<String>();
    let address = start_referee(network, None, move |mut stream| {
        let seen = seen.clone();
        async move {
            let token = stream.metadata.get("spite-token").map(|v| v.to_str().unwrap().to_owned());
            let Some(pb::BotMessage { body: Some(pb::bot_message::Body::Hello(hello)) }) = stream.recv().await else {
                let _ = seen.send("the first message is no Hello".into());
                return;
            };
            let _ = seen.send(format!(
                "metadata {token:?} hello {} {} {} {}",
                hello.token, hello.name, hello.version, hello.protocol_version
            ));
            stream
                .send(Body::Welcome(pb::Welcome {
                    seat: 1,
                    rules: Some(rules()),
                    protocol_version: 1,
                    games: 1,
                    ..Default::default()
                }))
                .await;
            stream
                .send(Body::GameStart(pb::GameStart {
                    observation: Some(pb::Observation { seat: 1, hand: vec![3, 9], ..Default::default() }),
                    ..Default::default()
                }))
                .await;
            stream
                .send(Body::Events(pb::EventBatch {
                    events: vec![pb::Event {
                        kind: pb::EventKind::Deal as i32,
                        seat: 0,
                        pile: -1,
                        ..Default::default()
                    }],
                    ..Default::default()
                }))
                .await;
            stream
                .send(Body::Decision(pb::DecisionRequest {
                    decision_id: 41,
                    deadline_ms: 1500,
                    bank_ms: 3000,
                    observation: Some(pb::Observation {
                        seat: 1,
                        to_move: 1,
                        legal_moves: vec![wire("H:3>C0"), wire("H:9>D0")],
                        ..Default::default()
                    }),
                    ..Default::default()
                }))
                .await;
            let Some(pb::BotMessage { body: Some(pb::bot_message::Body::Action(action)) }) = stream.recv().await else {
                let _ = seen.send("no action".into());
                return;
            };
            let _ = seen.send(format!("action {} {:?} debug {:?}", action.decision_id, action.choice, action.debug));
            stream
                .send(Body::Result(pb::ActionResult {
                    decision_id: 41,
                    applied: vec![wire("H:9>D0")],
                    ..Default::default()
                }))
                .await;
            stream
                .send(Body::GameOver(pb::GameOver {
                    outcome: Some(pb::Outcome {
                        ending: pb::Ending::Stalemate as i32,
                        offender: -1,
                        ..Default::default()
                    }),
                    ..Default::default()
                }))
                .await;
            stream
                .send(Body::MatchOver(pb::MatchOver {
                    points: vec![0, 0],
                    reason: "tied".into(),
                    ..Default::default()
                }))
                .await;
            // The bot half-closes after MatchOver.
            let after = stream.inbound.message().await;
            let _ = seen.send(match after {
                Ok(None) => "half-closed".into(),
                other => format!("after MatchOver: {other:?}"),
            });
        }
    })
    .await;

    let mut bot = Recorder::default();
    let result = play_match(&mut bot, &options(&address)).await.unwrap();
    assert_eq!((result.reason.as_str(), result.points.as_slice()), ("tied", &[0, 0][..]));
    assert_eq!(
        bot.calls,
        [
            "welcome seat 1 standard",
            "start 0 hand [3, 9]",
            "events 0 Deal",
            "decide 41 [H:3>C0 H:9>D0]",
            "result 41 H:9>D0",
            "over 0 stalemate",
            "match [0, 0]",
        ]
    );
    for expected in
        [r#"metadata Some("tok") hello tok rec 2.0 1"#, r#"action 41 Some(MoveIndex(1)) debug "last""#, "half-closed"]
    {
        assert_eq!(saw.recv().await.unwrap(), expected);
    }
    let d = bot.decisions[0];
    assert_eq!(
        (d.id, d.game, d.deadline - d.received, d.bank),
        (41, 0, Duration::from_millis(1500), Duration::from_secs(3))
    );
    assert_eq!(d.final_deadline(), d.deadline + Duration::from_secs(3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_match_over_a_unix_socket() {
    whole_match(Network::Unix).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_match_over_tcp() {
    whole_match(Network::Tcp).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_goes_out_as_a_plan() {
    let (seen, mut saw) = mpsc::unbounded_channel::<pb::Action>();
    let address = start_referee(Network::Unix, None, move |mut stream| {
        let seen = seen.clone();
        async move {
            stream.recv().await;
            stream.send(Body::Welcome(pb::Welcome { rules: Some(rules()), ..Default::default() })).await;
            stream
                .send(Body::Decision(pb::DecisionRequest {
                    decision_id: 3,
                    deadline_ms: 1000,
                    observation: Some(pb::Observation { legal_moves: vec![wire("S:A>C0")], ..Default::default() }),
                    ..Default::default()
                }))
                .await;
            if let Some(pb::BotMessage { body: Some(pb::bot_message::Body::Action(action)) }) = stream.recv().await {
                let _ = seen.send(action);
            }
            stream.send(Body::MatchOver(pb::MatchOver::default())).await;
        }
    })
    .await;
    let mut bot = |_: &Observation, _: &Decision| -> Result<Choice, BotError> {
        Ok(vec!["S:A>C0".parse()?, "H:2>C0".parse()?].into())
    };
    play_match(&mut bot, &options(&address)).await.unwrap();
    let action = saw.recv().await.unwrap();
    assert_eq!(action.choice, Some(pb::action::Choice::Plan(pb::Plan { moves: vec![wire("S:A>C0"), wire("H:2>C0")] })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_referee_refuses() {
    for (refuse_at_once, network) in [(true, Network::Unix), (false, Network::Tcp)] {
        let status = Status::unauthenticated("unknown seat token");
        let address = if refuse_at_once {
            start_referee(network, Some(status), |_| async {}).await
        } else {
            // After the Hello, as the Python referee does.
            start_referee(network, None, move |mut stream| {
                let status = status.clone();
                async move {
                    stream.recv().await;
                    stream.fail(status).await;
                }
            })
            .await
        };
        let error = play_match(&mut Recorder::default(), &options(&address)).await.unwrap_err();
        let Error::Referee(referee) = &error else { panic!("{error:?}") };
        assert_eq!(referee.code, Some(Code::Unauthenticated));
        let text = error.to_string();
        assert!(
            text.contains("refused the seat token") && text.contains("(UNAUTHENTICATED: unknown seat token)"),
            "{text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_referee_closes_early() {
    let address = start_referee(Network::Unix, None, |mut stream| async move {
        stream.recv().await;
    })
    .await;
    let error = play_match(&mut Recorder::default(), &options(&address)).await.unwrap_err();
    assert!(error.to_string().contains("closed the stream before the match was over"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decide_error_stops_the_bot() {
    let address = start_referee(Network::Unix, None, ask_one_decision).await;
    let mut bot = |_: &Observation, _: &Decision| -> Result<Choice, BotError> { Err("boom".into()) };
    let error = play_match(&mut bot, &options(&address)).await.unwrap_err();
    let Error::Decide { decision, source } = &error else { panic!("{error:?}") };
    assert_eq!((*decision, source.to_string().as_str()), (1, "boom"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_becomes_an_error() {
    let address = start_referee(Network::Unix, None, ask_one_decision).await;
    let mut bot = |obs: &Observation, _: &Decision| -> Result<Choice, BotError> { Ok(obs.legal_moves[5].into()) };
    let error = play_match(&mut bot, &options(&address)).await.unwrap_err();
    let Error::Panic(message) = &error else { panic!("{error:?}") };
    assert!(message.contains("index out of bounds"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_referee() {
    let address = format!("unix:{}", socket_path("nobody").display());
    let started = Instant::now();
    let options = Options { connect_timeout: Some(Duration::from_millis(300)), ..options(&address) };
    let error = play_match(&mut Recorder::default(), &options).await.unwrap_err();
    assert!(matches!(&error, Error::Referee(r) if r.code == Some(Code::Unavailable)), "{error:?}");
    assert!(error.to_string().contains("cannot reach the referee"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(5), "gave up after {:?}, not about 300 ms", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_decision_is_answered() {
    // The connection is served on another thread while decide blocks this one.
    let address = start_referee(Network::Tcp, None, ask_one_decision).await;
    let mut bot = |_: &Observation, d: &Decision| -> Result<Choice, BotError> {
        std::thread::sleep(Duration::from_millis(300));
        assert!(d.is_overdue() && d.remaining() == Duration::ZERO);
        Ok(Choice::Index(0))
    };
    // ask_one_decision never sends MatchOver: the bot must see the stream end, not hang.
    let error = play_match(&mut bot, &options(&address)).await.unwrap_err();
    assert!(error.to_string().contains("closed the stream before the match was over"), "{error}");
}
