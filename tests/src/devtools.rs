//! Chrome DevTools protocol commands through chromedriver (`POST /session/{id}/goog/cdp/execute`), for what no
//! page script can do: acting as the browser's own agent, which calls a page's WebMCP tools through the protocol's
//! `WebMCP` domain (`WebMCP.invokeTool`, `WebMCP.cancelInvocation`) in a Chromium with native WebMCP.

use fantoccini::wd::WebDriverCompatibleCommand;
use serde_json::{Value, json};

use crate::error::{Doing, E2eResult};
use crate::session::Session;

/// One DevTools command, sent to the session's current top-level page.
#[derive(Debug)]
struct Command {
    method: String,
    params: Value,
}

impl WebDriverCompatibleCommand for Command {
    fn endpoint(&self, base_url: &url::Url, session_id: Option<&str>) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!("session/{}/goog/cdp/execute", session_id.unwrap_or_default()))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(json!({ "cmd": self.method, "params": self.params }).to_string()))
    }
}

/// Sends `method` with `params` to the session's top-level page; what the protocol answered.
pub async fn command(session: &Session, method: &str, params: Value) -> E2eResult<Value> {
    let command = Command { method: method.to_owned(), params };
    session.client().issue_cmd(command).await.doing(format!("sending the DevTools command {method}"))
}

/// The browser's agent calls tool `name` of the top-level page with `input` (`WebMCP.invokeTool`): returns the
/// invocation's id, for [`cancel_tool`]. The call runs on in the page; the caller reads its effects there.
pub async fn invoke_tool(session: &Session, name: &str, input: Value) -> E2eResult<String> {
    let tree = command(session, "Page.getFrameTree", json!({})).await?;
    let frame_id = tree["frameTree"]["frame"]["id"].clone();
    command(session, "WebMCP.enable", json!({})).await?;
    let invoked =
        command(session, "WebMCP.invokeTool", json!({ "frameId": frame_id, "toolName": name, "input": input })).await?;
    Ok(invoked["invocationId"].as_str().unwrap_or_default().to_owned())
}

/// The browser's agent stops invocation `id` (`WebMCP.cancelInvocation`).
pub async fn cancel_tool(session: &Session, id: &str) -> E2eResult<()> {
    command(session, "WebMCP.cancelInvocation", json!({ "invocationId": id })).await.map(|_| ())
}
