//! A referee double for the tests: a real tonic server, on a Unix socket or on
//! 127.0.0.1 port 0, whose Play handler is the test's script.

#![allow(dead_code)] // each test binary uses its own part of this

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use spite::proto::referee_server::{Referee, RefereeServer};
use spite::proto::{self as pb, referee_message::Body};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::mpsc;
use tokio_stream::wrappers::{ReceiverStream, TcpListenerStream, UnixListenerStream};
use tonic::metadata::MetadataMap;
use tonic::transport::Server;
use tonic::{Request, Response, Status, Streaming};

/// The referee's side of one Play stream, as a test script sees it.
pub struct Stream {
    pub metadata: MetadataMap,
    pub inbound: Streaming<pb::BotMessage>,
    outbound: mpsc::Sender<Result<pb::RefereeMessage, Status>>,
}

impl Stream {
    pub async fn send(&self, body: Body) {
        let _ = self.outbound.send(Ok(pb::RefereeMessage { body: Some(body) })).await;
    }

    /// Ends the stream with an error status.
    pub async fn fail(self, status: Status) {
        let _ = self.outbound.send(Err(status)).await;
    }

    /// The bot's next message; `None` once it half-closed or its stream failed.
    pub async fn recv(&mut self) -> Option<pb::BotMessage> {
        self.inbound.message().await.ok().flatten()
    }
}

type Script = Arc<dyn Fn(Stream) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

struct FakeReferee {
    script: Script,
    refuse: Option<Status>,
}

#[tonic::async_trait]
impl Referee for FakeReferee {
    type PlayStream = ReceiverStream<Result<pb::RefereeMessage, Status>>;
    type SpectateStream = ReceiverStream<Result<pb::SpectatorMessage, Status>>;

    async fn play(&self, request: Request<Streaming<pb::BotMessage>>) -> Result<Response<Self::PlayStream>, Status> {
        if let Some(status) = &self.refuse {
            return Err(status.clone());
        }
        let metadata = request.metadata().clone();
        let (outbound, receiver) = mpsc::channel(16);
        tokio::spawn((self.script)(Stream { metadata, inbound: request.into_inner(), outbound }));
        Ok(Response::new(ReceiverStream::new(receiver)))
    }

    async fn create_match(
        &self,
        _: Request<pb::CreateMatchRequest>,
    ) -> Result<Response<pb::CreateMatchResponse>, Status> {
        Err(Status::unimplemented("a test double"))
    }

    async fn get_match(&self, _: Request<pb::GetMatchRequest>) -> Result<Response<pb::MatchStatus>, Status> {
        Err(Status::unimplemented("a test double"))
    }

    async fn spectate(&self, _: Request<pb::SpectateRequest>) -> Result<Response<Self::SpectateStream>, Status> {
        Err(Status::unimplemented("a test double"))
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Network {
    Unix,
    Tcp,
}

/// A fresh socket path in the temporary directory.
pub fn socket_path(name: &str) -> PathBuf {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("spite-rust-{}-{n}-{name}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// Serves `script` (or refuses every stream with `refuse`) on the current runtime and
/// returns the address a bot dials. The server lives until the runtime ends.
pub async fn start_referee<F, Fut>(network: Network, refuse: Option<Status>, script: F) -> String
where
    F: Fn(Stream) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let script: Script = Arc::new(move |stream| Box::pin(script(stream)));
    let service = RefereeServer::new(FakeReferee { script, refuse });
    match network {
        Network::Unix => {
            let path = socket_path("referee");
            let listener = UnixListener::bind(&path).unwrap();
            tokio::spawn(Server::builder().serve_with_incoming(service, UnixListenerStream::new(listener)));
            format!("unix:{}", path.display())
        }
        Network::Tcp => {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap().to_string();
            tokio::spawn(Server::builder().serve_with_incoming(service, TcpListenerStream::new(listener)));
            address
        }
    }
}

pub fn rules() -> pb::RuleSet {
    pb::RuleSet {
        name: "standard".into(),
        players: 2,
        centre_piles: 4,
        discard_piles: 4,
        wild_ranks: vec![0, 13],
        ..Default::default()
    }
}

pub fn wire(text: &str) -> pb::Move {
    text.parse::<spite::Move>().unwrap().into()
}

/// A referee that welcomes the bot, asks one decision with a single legal pass, and
/// ends the stream (without MatchOver) once it has the answer.
pub async fn ask_one_decision(mut stream: Stream) {
    if stream.recv().await.is_none() {
        return;
    }
    stream.send(Body::Welcome(pb::Welcome { rules: Some(rules()), ..Default::default() })).await;
    stream
        .send(Body::Decision(pb::DecisionRequest {
            decision_id: 1,
            deadline_ms: 100,
            observation: Some(pb::Observation { legal_moves: vec![wire("pass")], ..Default::default() }),
            ..Default::default()
        }))
        .await;
    stream.recv().await;
}
