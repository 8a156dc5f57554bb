//! The client of the gRPC streaming row of the server bench (server/bench.sh,
//! docs/bench/server.md): one `idmint.v1.Ids/StreamIds` call over one HTTP/2 connection (h2c),
//! read for a while, then cancelled. The client code is tonic's, generated from
//! server/proto/idmint/v1/idmint.proto (build.rs), over hyper's HTTP/2 client.
//!
//! Every ID is checked: each above the one before (one stream of one server never repeats or
//! goes back), so a duplicate cannot go uncounted. Prints one line:
//! `ids=N messages=M seconds=S ids_per_sec=R duplicates_or_disorder=D`; exits 1 when D > 0.
//!
//! ```text
//! cargo run --release -p idmint-server --example stream_ids -- 127.0.0.1:8080 segment bench 5 [BATCH] [TOKEN]
//! cargo run --release -p idmint-server --example stream_ids -- 127.0.0.1:8080 snowflake - 5
//! ```

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};

#[allow(clippy::all, clippy::pedantic)]
mod pb {
    include!(concat!(env!("OUT_DIR"), "/client/idmint.v1.rs"));
}

/// hyper's HTTP/2 connection as the service tonic's client sends through.
#[derive(Clone)]
struct H2(SendRequest<tonic::body::Body>);

impl tower::Service<axum::http::Request<tonic::body::Body>> for H2 {
    type Response = axum::http::Response<hyper::body::Incoming>;
    type Error = hyper::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, hyper::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), hyper::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, req: axum::http::Request<tonic::body::Body>) -> Self::Future {
        let mut send = self.0.clone();
        Box::pin(async move { send.send_request(req).await })
    }
}

fn usage() -> ! {
    eprintln!("usage: stream_ids HOST:PORT segment|snowflake TAG SECONDS [BATCH] [TOKEN]");
    std::process::exit(2)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        usage();
    }
    let (addr, kind, tag) = (&args[0], &args[1], &args[2]);
    let seconds: f64 = args[3].parse().unwrap_or_else(|_| usage());
    let batch: u64 = args.get(4).map_or(Ok(0), |b| b.parse())?;
    let kind = match kind.as_str() {
        "segment" => pb::StreamKind::Segment,
        "snowflake" => pb::StreamKind::Snowflake,
        _ => usage(),
    };

    let tcp = tokio::net::TcpStream::connect(addr).await?;
    tcp.set_nodelay(true)?;
    // Windows large enough that flow control never waits on this reader's acknowledgements
    // over loopback: the server's pace is what is measured.
    let (send, conn) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .initial_stream_window_size(8 << 20)
        .initial_connection_window_size(16 << 20)
        .max_frame_size(1 << 20)
        .handshake(TokioIo::new(tcp))
        .await?;
    tokio::spawn(conn);
    let origin: axum::http::Uri = format!("http://{addr}").parse()?;
    let mut client = pb::ids_client::IdsClient::with_origin(H2(send), origin)
        .max_decoding_message_size(64 << 20);

    let mut req = tonic::Request::new(pb::StreamRequest {
        kind: kind as i32,
        tag: tag.clone(),
        count: 0,
        batch,
    });
    if let Some(token) = args.get(5) {
        req.metadata_mut()
            .insert("authorization", format!("Bearer {token}").parse()?);
    }
    let mut stream = client.stream_ids(req).await?.into_inner();
    let limit = Duration::from_secs_f64(seconds);
    let started = Instant::now();
    let (mut ids, mut messages, mut bad, mut last) = (0u64, 0u64, 0u64, None::<u64>);
    while let Some(msg) = stream.message().await? {
        messages += 1;
        ids += msg.ids.len() as u64;
        for id in msg.ids {
            if last.is_some_and(|l| id <= l) {
                bad += 1;
            }
            last = Some(id);
        }
        if started.elapsed() >= limit {
            break;
        }
    }
    let took = started.elapsed().as_secs_f64();
    // Dropping the stream cancels the call (RST_STREAM): the server stops minting.
    drop(stream);
    println!(
        "ids={ids} messages={messages} seconds={took:.3} ids_per_sec={:.0} duplicates_or_disorder={bad}",
        ids as f64 / took
    );
    if bad > 0 {
        std::process::exit(1);
    }
    Ok(())
}
