//! Serves a local web-platform-tests folder on two loopback origins, with the runner's own
//! `/resources/testharnessreport.js` and `/common/get-host-info.sub.js`, the bridge package under `/__wpt_webmcp/pkg/`,
//! and (in bridge mode) every HTML page rewritten by [`crate::page`] so that the bridge is installed before its scripts.

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use tokio::sync::Notify;

use crate::page;

/// Where the runner's own routes live; nothing of wpt is under it.
pub const PREFIX: &str = "/__wpt_webmcp";

/// How long a page's load event may be held for the bridge to install (then it is let go anyway).
const HOLD_AT_MOST: Duration = Duration::from_secs(20);

/// The origins a run serves and names.
#[derive(Clone, Debug)]
pub struct Origins {
    /// The test pages' origin, `http://127.0.0.1:<port>` (wpt's `HTTPS_ORIGIN`).
    pub main: String,
    /// A second served origin, same site, other port (wpt's `HTTPS_REMOTE_ORIGIN`).
    pub remote: String,
    /// An origin that is named but not served, cross-site (wpt's `HTTPS_OTHER_NOTSAMESITE_ORIGIN`).
    pub other: String,
    main_port: u16,
    remote_port: u16,
}

#[derive(Clone)]
struct Served {
    root: Arc<PathBuf>,
    pkg: Arc<PathBuf>,
    bridge: bool,
    origins: Arc<Origins>,
    holds: Arc<Mutex<HashMap<String, Arc<Notify>>>>,
}

/// Binds both origins on loopback and serves them until the runtime ends. `bridge` rewrites HTML pages.
pub async fn serve(root: PathBuf, pkg: PathBuf, bridge: bool) -> std::io::Result<Origins> {
    let main = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
    let remote = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
    let (main_port, remote_port) = (main.local_addr()?.port(), remote.local_addr()?.port());
    // A third origin for "exposed to somebody else": localhost is another site than 127.0.0.1; nothing listens there.
    let other_port = remote_port.checked_add(1).unwrap_or(remote_port - 1);
    let origins = Origins {
        main: format!("http://127.0.0.1:{main_port}"),
        remote: format!("http://127.0.0.1:{remote_port}"),
        other: format!("http://localhost:{other_port}"),
        main_port,
        remote_port,
    };
    let state = Served {
        root: Arc::new(root),
        pkg: Arc::new(pkg),
        bridge,
        origins: Arc::new(origins.clone()),
        holds: Arc::default(),
    };
    let app = Router::new().fallback(respond).with_state(state);
    tokio::spawn(axum::serve(main, app.clone()).into_future());
    tokio::spawn(axum::serve(remote, app).into_future());
    Ok(origins)
}

async fn respond(State(served): State<Served>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    if let Some(rest) = path.strip_prefix(PREFIX) {
        return own_route(&served, rest).await;
    }
    match path.as_str() {
        "/resources/testharnessreport.js" => return javascript(page::REPORT_SCRIPT.to_owned()),
        "/common/get-host-info.sub.js" => return javascript(page::host_info_script(&served.origins)),
        _ => {}
    }
    let Some(file) = inside(&served.root, &path) else { return status(StatusCode::NOT_FOUND) };
    let file = if file.is_dir() { file.join("index.html") } else { file };
    let Ok(bytes) = tokio::fs::read(&file).await else { return status(StatusCode::NOT_FOUND) };
    let kind = content_type(&file);
    let name = file.file_name().and_then(|name| name.to_str()).unwrap_or_default();
    let bytes = if name.contains(".sub.") {
        substitute(&String::from_utf8_lossy(&bytes), &served.origins).into_bytes()
    } else {
        bytes
    };
    if served.bridge && kind.starts_with("text/html") {
        let html = page::with_bridge(&String::from_utf8_lossy(&bytes));
        return with_type(html.into_bytes(), kind);
    }
    with_type(bytes, kind)
}

/// `/hold/<id>` answers once `/release/<id>` came (or after [`HOLD_AT_MOST`]); `/pkg/...` is the bridge package.
async fn own_route(served: &Served, rest: &str) -> Response {
    if let Some(id) = rest.strip_prefix("/hold/") {
        let notify = hold(served, id);
        let _ = tokio::time::timeout(HOLD_AT_MOST, notify.notified()).await;
        served.holds.lock().map(|mut holds| holds.remove(id)).ok();
        return status(StatusCode::NO_CONTENT);
    }
    if let Some(id) = rest.strip_prefix("/release/") {
        // notify_one keeps a permit when the hold's request has not arrived yet.
        hold(served, id).notify_one();
        return status(StatusCode::NO_CONTENT);
    }
    if let Some(file) = rest.strip_prefix("/pkg").and_then(|file| inside(&served.pkg, file))
        && let Ok(bytes) = tokio::fs::read(&file).await
    {
        return with_type(bytes, content_type(&file));
    }
    status(StatusCode::NOT_FOUND)
}

fn hold(served: &Served, id: &str) -> Arc<Notify> {
    let mut holds = served.holds.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    holds.entry(id.to_owned()).or_default().clone()
}

/// `root` joined with the URL path, or `None` when the path would leave `root`.
fn inside(root: &Path, url_path: &str) -> Option<PathBuf> {
    let relative = Path::new(url_path.trim_start_matches('/'));
    relative.components().all(|part| matches!(part, Component::Normal(_))).then(|| root.join(relative))
}

/// wptserve's template substitutions that a loopback run can answer: hosts, domains and ports.
fn substitute(text: &str, origins: &Origins) -> String {
    let ports = |kind: &str, index: usize| -> Option<u16> {
        match (kind, index) {
            ("http" | "https", 0) => Some(origins.main_port),
            ("http" | "https", 1) => Some(origins.remote_port),
            _ => None,
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find("}}") else { break };
        let key = rest[start + 2..start + end].trim();
        let value = if key == "host" || key.starts_with("domains[") || key.starts_with("hosts[") {
            Some("127.0.0.1".to_owned())
        } else if let Some(inner) = key.strip_prefix("ports[").and_then(|inner| inner.strip_suffix(']')) {
            inner
                .split_once("][")
                .and_then(|(kind, index)| ports(kind, index.parse().ok()?))
                .map(|port| port.to_string())
        } else {
            None
        };
        match value {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[start..start + end + 2]),
        }
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    out
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|ext| ext.to_str()).unwrap_or_default() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "wasm" => "application/wasm",
        "css" => "text/css",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn javascript(text: String) -> Response {
    with_type(text.into_bytes(), "text/javascript; charset=utf-8")
}

fn with_type(bytes: Vec<u8>, kind: &'static str) -> Response {
    let mut response = Response::new(Body::from(bytes));
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn status(code: StatusCode) -> Response {
    code.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origins() -> Origins {
        Origins {
            main: "http://127.0.0.1:8000".into(),
            remote: "http://127.0.0.1:8001".into(),
            other: "http://localhost:8002".into(),
            main_port: 8000,
            remote_port: 8001,
        }
    }

    #[test]
    fn templates_name_the_served_hosts_and_ports() {
        let text = "a {{host}}:{{ports[http][0]}} b {{ports[https][1]}} c {{domains[www]}} d {{GET[x]}}";
        assert_eq!(substitute(text, &origins()), "a 127.0.0.1:8000 b 8001 c 127.0.0.1 d {{GET[x]}}");
    }

    #[test]
    fn paths_stay_inside_the_folder() {
        let root = Path::new("/w");
        assert_eq!(inside(root, "/webmcp/a.html"), Some(PathBuf::from("/w/webmcp/a.html")));
        assert_eq!(inside(root, "/../etc/passwd"), None);
        assert_eq!(inside(root, "/a/./b"), Some(PathBuf::from("/w/a/b")));
    }
}
