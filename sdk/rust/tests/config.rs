//! Configuration from the environment, and `run`'s exit status. One test, alone in its
//! binary, because it changes the process's environment.

mod common;

use std::process::ExitCode;
use std::time::Duration;

use common::{Network, start_referee};
use spite::proto::{self as pb, referee_message::Body};
use spite::{Choice, Decision, EXIT_CONFIG, EXIT_FAILED, EXIT_OK, Error, Observation, Options, bot_seed, run};
use tonic::Status;

fn set(name: &str, value: &str) {
    // SAFETY: this binary's only test runs on one thread; the referee double's runtime
    // threads never read the environment.
    unsafe { std::env::set_var(name, value) }
}

fn config_error(options: Options) -> String {
    match options.from_env() {
        Err(Error::Config(message)) => message,
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

#[test]
fn configuration_and_exit_status() {
    for name in [
        "SPITE_ADDRESS",
        "SPITE_TOKEN",
        "SPITE_TOKEN_FILE",
        "SPITE_CONNECT_TIMEOUT",
        "SPITE_LOG_LEVEL",
        "SPITE_BOT_SEED",
    ] {
        set(name, "");
    }
    let mut bot = |_: &Observation, _: &Decision| -> Result<Choice, spite::BotError> { Ok(Choice::Index(0)) };
    assert_eq!(run(&mut bot, Options::default()), ExitCode::from(EXIT_CONFIG), "no address");
    assert!(config_error(Options::default()).contains("no referee address"));

    set("SPITE_ADDRESS", "localhost:1");
    assert!(config_error(Options::default()).contains("no seat token"));
    let file = common::socket_path("token");
    std::fs::write(&file, "secret\n").unwrap();
    set("SPITE_TOKEN_FILE", file.to_str().unwrap());
    set("SPITE_CONNECT_TIMEOUT", "1.5");
    let options = Options::new("x", "1").from_env().unwrap();
    assert_eq!(
        (options.token.as_str(), options.address.as_str(), options.connect_timeout),
        ("secret", "localhost:1", Some(Duration::from_millis(1500)))
    );
    set("SPITE_TOKEN", "direct");
    assert_eq!(Options::default().from_env().unwrap().token, "direct", "SPITE_TOKEN wins over SPITE_TOKEN_FILE");
    let _ = std::fs::remove_file(&file);
    set("SPITE_CONNECT_TIMEOUT", "soon");
    assert!(config_error(Options::default()).contains("SPITE_CONNECT_TIMEOUT"));
    set("SPITE_CONNECT_TIMEOUT", "");

    set("SPITE_BOT_SEED", "42");
    assert_eq!(bot_seed(), 42);
    set("SPITE_BOT_SEED", "-1");
    assert_eq!(bot_seed(), u64::MAX);
    set("SPITE_BOT_SEED", "abc");
    assert_eq!(bot_seed(), 0xe71f_a219_0541_574b, "FNV-1a of the text, as the Go SDK hashes it");

    // run() builds its own runtime: the referee double gets another one.
    let referees = tokio::runtime::Runtime::new().unwrap();
    let refusing =
        referees.block_on(start_referee(Network::Unix, Some(Status::already_exists("seat 0 is taken")), |_| async {}));
    set("SPITE_ADDRESS", &refusing);
    assert_eq!(run(&mut bot, Options::default()), ExitCode::from(EXIT_FAILED), "a refusal");

    let welcoming = referees.block_on(start_referee(Network::Unix, None, |mut stream| async move {
        stream.recv().await;
        stream.send(Body::Welcome(pb::Welcome { rules: Some(common::rules()), ..Default::default() })).await;
        stream.send(Body::MatchOver(pb::MatchOver { reason: "nothing to play".into(), ..Default::default() })).await;
    }));
    set("SPITE_ADDRESS", &welcoming);
    assert_eq!(run(&mut bot, Options::default()), ExitCode::from(EXIT_OK), "a whole (empty) match");
}
