//! A minimal Chrome DevTools protocol client: the target list of the browser chromedriver started, and one
//! WebSocket per target (a page or an out-of-process iframe) to send commands on.

use std::time::Duration;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::error::BenchError;

/// How long one DevTools command may take (stopping a profiler serializes the whole profile).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

/// A DevTools target of the browser.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// `page`, `iframe`, `service_worker`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// Its document's URL.
    pub url: String,
    /// Where to connect to debug it.
    #[serde(default)]
    pub web_socket_debugger_url: Option<String>,
}

fn devtools_error(message: impl std::fmt::Display) -> BenchError {
    BenchError::Tool { tool: "the DevTools protocol".to_owned(), message: message.to_string() }
}

/// The targets of the browser whose DevTools listen at `address` (`host:port`, as chromedriver reports it in
/// `goog:chromeOptions.debuggerAddress`).
pub async fn targets(address: &str) -> Result<Vec<Target>, BenchError> {
    let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let uri: http::Uri = format!("http://{address}/json/list").parse().map_err(devtools_error)?;
    let response = client.get(uri).await.map_err(devtools_error)?;
    let body = response.into_body().collect().await.map_err(devtools_error)?.to_bytes();
    serde_json::from_slice(&body).map_err(devtools_error)
}

/// A DevTools session with one target.
pub struct Connection {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_id: u64,
}

impl Connection {
    /// Connects to `target`.
    pub async fn open(target: &Target) -> Result<Self, BenchError> {
        let url = target.web_socket_debugger_url.as_deref().ok_or_else(|| {
            devtools_error(format!("{} has no debugger URL (is another client attached?)", target.url))
        })?;
        let (socket, _) = tokio_tungstenite::connect_async(url).await.map_err(devtools_error)?;
        Ok(Connection { socket, next_id: 1 })
    }

    /// Sends `method` with `params` and waits for its result (events that arrive meanwhile are dropped).
    pub async fn call(&mut self, method: &str, params: Value) -> Result<Value, BenchError> {
        let id = self.next_id;
        self.next_id += 1;
        let request = json!({ "id": id, "method": method, "params": params }).to_string();
        self.socket.send(Message::text(request)).await.map_err(devtools_error)?;
        let wait = async {
            while let Some(message) = self.socket.next().await {
                let text = match message.map_err(devtools_error)? {
                    Message::Text(text) => text.to_string(),
                    Message::Binary(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                    _ => continue,
                };
                let mut answer: Value = serde_json::from_str(&text).map_err(devtools_error)?;
                if answer.get("id").and_then(Value::as_u64) != Some(id) {
                    continue;
                }
                if let Some(error) = answer.get("error") {
                    return Err(devtools_error(format!("{method}: {error}")));
                }
                return Ok(answer.get_mut("result").map(Value::take).unwrap_or(Value::Null));
            }
            Err(devtools_error(format!("the connection closed while waiting for {method}")))
        };
        tokio::time::timeout(COMMAND_TIMEOUT, wait)
            .await
            .map_err(|_| devtools_error(format!("{method} got no answer within {COMMAND_TIMEOUT:?}")))?
    }
}
