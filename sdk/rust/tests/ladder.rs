//! The ladder's Join against a real tonic server standing in for the lobby (the games
//! themselves: tests/arena/test_remote_languages.py, against a real `spite serve`).

use std::sync::{Arc, Mutex};

use spite::arena::{BOT_KEY_METADATA_KEY, Ladder, play_ladder};
use spite::proto::arena_server::{Arena, ArenaServer};
use spite::proto::{Assignment, JoinRequest};
use spite::{Choice, Decision, EXIT_FAILED, Observation, Options};
use tokio::net::TcpListener;
use tokio_stream::wrappers::{ReceiverStream, TcpListenerStream};
use tonic::transport::Server;
use tonic::{Request, Response, Status};

/// Ends its first Join as a server going away, and refuses the key on the second.
#[derive(Default)]
struct Lobby {
    joins: Arc<Mutex<Vec<(JoinRequest, Option<String>)>>>,
}

#[tonic::async_trait]
impl Arena for Lobby {
    type JoinStream = ReceiverStream<Result<Assignment, Status>>;

    async fn join(&self, request: Request<JoinRequest>) -> Result<Response<Self::JoinStream>, Status> {
        let key = request.metadata().get(BOT_KEY_METADATA_KEY).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let mut joins = self.joins.lock().unwrap();
        joins.push((request.into_inner(), key));
        if joins.len() == 1 {
            let (sender, receiver) = tokio::sync::mpsc::channel(1);
            let _ = sender.try_send(Err(Status::unavailable("the server is stopping")));
            return Ok(Response::new(ReceiverStream::new(receiver)));
        }
        Err(Status::unauthenticated("unknown key"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn joins_again_after_an_error_and_stops_on_a_refusal() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let lobby = Lobby::default();
    let joins = Arc::clone(&lobby.joins);
    let server =
        tokio::spawn(Server::builder().serve_with_incoming(ArenaServer::new(lobby), TcpListenerStream::new(listener)));
    let mut bot = |_: &Observation, _: &Decision| -> Result<Choice, spite::BotError> { Ok(Choice::Index(0)) };
    let ladder = Ladder { address, key: "sk_x".into(), capacity: 3 };
    let status = play_ladder(&mut bot, &Options::new("laddered", "2.0"), &ladder).await;
    assert_eq!(status, EXIT_FAILED);
    let joins = joins.lock().unwrap();
    assert_eq!(joins.len(), 2);
    let (first, key) = &joins[0];
    assert_eq!(
        (first.key.as_str(), first.bot_name.as_str(), first.bot_version.as_str(), first.capacity, key.as_deref()),
        ("sk_x", "laddered", "2.0", 3, Some("sk_x"))
    );
    server.abort();
}
