//! Reading the test-mode postMessage spy of every frame, and the "never '*'" check.

use serde::Deserialize;

use crate::error::{E2eError, E2eResult};
use crate::session::Session;

/// One recorded `postMessage` call.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct PostRecord {
    /// `window` (a window's own postMessage) or `port` (`MessagePort.prototype.postMessage`).
    pub via: String,
    /// The target origin given (`/` when omitted); `None` for ports, which have none.
    #[serde(rename = "targetOrigin")]
    pub target_origin: Option<String>,
    /// The message's `type` when it is an object with a string `type`, else its JavaScript type.
    #[serde(rename = "type")]
    pub message_type: String,
}

/// The spy log of one frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameLog {
    /// Iframe indexes from the top document (empty for the top).
    pub path: Vec<usize>,
    /// The frame's origin (`null` for an opaque one).
    pub origin: String,
    /// The frame's URL.
    pub url: String,
    /// The recorded calls; `None` when the frame has no spy (not served in test mode, or `about:blank`).
    pub records: Option<Vec<PostRecord>>,
    /// Calls not recorded because the log was full.
    pub dropped: u64,
}

#[derive(Deserialize)]
struct RawFrameLog {
    origin: String,
    url: String,
    records: Option<Vec<PostRecord>>,
    dropped: u64,
}

const READ_LOG: &str = "return { origin: self.origin, url: location.href, \
    records: Array.isArray(window.__postMessageLog) ? window.__postMessageLog : null, \
    dropped: Number(window.__postMessageLogDropped || 0) };";

/// The spy logs of the top document and every frame in it, depth first. Leaves the session at the top.
pub async fn spy_logs(session: &Session) -> E2eResult<Vec<FrameLog>> {
    session.to_top().await?;
    let mut logs = Vec::new();
    for (path, raw) in session.execute_in_every_frame(READ_LOG).await? {
        let log: RawFrameLog = serde_json::from_value(raw)
            .map_err(|error| E2eError::Check(format!("unreadable spy log in frame {path:?}: {error}")))?;
        logs.push(FrameLog { path, origin: log.origin, url: log.url, records: log.records, dropped: log.dropped });
    }
    Ok(logs)
}

/// The calls that used `'*'` as target origin, with the frame they were recorded in.
pub fn wildcard_posts(logs: &[FrameLog]) -> Vec<(&FrameLog, &PostRecord)> {
    logs.iter()
        .flat_map(|log| log.records.iter().flatten().map(move |record| (log, record)))
        .filter(|(_, record)| record.target_origin.as_deref() == Some("*"))
        .collect()
}

/// Fails when any frame of the page recorded a `postMessage` to `'*'`, or when a served page has no spy.
pub async fn check_no_wildcard_posts(session: &Session) -> E2eResult<Vec<FrameLog>> {
    let logs = spy_logs(session).await?;
    let unspied: Vec<&str> = logs
        .iter()
        .filter(|log| log.records.is_none() && log.url.starts_with("http"))
        .map(|log| log.url.as_str())
        .collect();
    if !unspied.is_empty() {
        return Err(E2eError::Check(format!("pages without the postMessage spy (is test mode on?): {unspied:?}")));
    }
    let wildcards = wildcard_posts(&logs);
    if !wildcards.is_empty() {
        let listed: Vec<String> = wildcards
            .iter()
            .map(|(log, record)| format!("{} posted {} to '*' (frame {:?})", log.url, record.message_type, log.path))
            .collect();
        return Err(E2eError::Check(format!("postMessage used '*': {}", listed.join("; "))));
    }
    Ok(logs)
}
