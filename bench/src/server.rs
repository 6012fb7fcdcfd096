//! The two loopback origins of the benchmark: the parent page's (`http://127.0.0.1:<port>`) and the iframe's
//! (`http://localhost:<port>`), distinct sites, so the iframe runs out of process as on the web.
//!
//! Both serve `bench/pages/`, the bridge package at `/pkg/`, `bench/node_modules` at `/npm/` and the origins of
//! the run at `/origins.js`. Every response is `no-store` (cold pages are cold) and cross-origin isolated
//! (COOP + COEP), which gives `performance.now()` a 5 µs resolution instead of 100 µs.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::error::BenchError;

/// The folders the server serves.
#[derive(Clone, Debug)]
pub struct ServeDirs {
    /// `bench/pages`.
    pub pages: PathBuf,
    /// The bridge package (`bridge/pkg`).
    pub pkg: PathBuf,
    /// `bench/node_modules`.
    pub npm: PathBuf,
}

impl ServeDirs {
    fn check(&self) -> Result<(), BenchError> {
        let checks = [
            (&self.pages, "parent.html", "the benchmark pages", "run from a checkout of interpane"),
            (&self.pkg, "interpane.js", "the bridge package", "run scripts/build-pkg.sh (scripts/bench.sh does)"),
            (&self.npm, "penpal", "penpal and comlink", "run npm ci in bench/ (scripts/bench.sh does)"),
        ];
        for (dir, inside, what, hint) in checks {
            if !dir.join(inside).exists() {
                return Err(BenchError::MissingDir { what, path: dir.clone(), hint });
            }
        }
        Ok(())
    }
}

/// The origins of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origins {
    /// The top page's origin, `http://127.0.0.1:<port>`.
    pub parent: String,
    /// The iframe's origin, `http://localhost:<port>`.
    pub child: String,
}

/// The running server; dropping it stops serving.
#[derive(Debug)]
pub struct BenchServer {
    origins: Origins,
    _stop: watch::Sender<bool>,
}

impl BenchServer {
    /// Serves `dirs` on two free loopback ports (or `ports`, when not 0) on the current tokio runtime.
    pub async fn start(dirs: ServeDirs, ports: (u16, u16)) -> Result<Self, BenchError> {
        dirs.check()?;
        let parent = bind(IpAddr::V4(Ipv4Addr::LOCALHOST), ports.0).await?;
        let parent_port = port_of(&parent)?;
        let child = bind(IpAddr::V4(Ipv4Addr::LOCALHOST), ports.1).await?;
        let child_port = port_of(&child)?;
        let mut listeners = vec![parent, child];
        // Browsers may try [::1] first for localhost: hold it too, when the machine has IPv6.
        if let Ok(v6) = bind(IpAddr::V6(Ipv6Addr::LOCALHOST), child_port).await {
            listeners.push(v6);
        }
        let origins = Origins {
            parent: format!("http://127.0.0.1:{parent_port}"),
            child: format!("http://localhost:{child_port}"),
        };
        let router = router(&dirs, &origins);
        let (stop, stopped) = watch::channel(false);
        for listener in listeners {
            let mut stopped = stopped.clone();
            // Nagle's algorithm off: with it, a response whose headers and body leave in two writes waits for the
            // browser's delayed ACK (about 40 ms on Linux loopback), which the cold start measured before
            // (penpal's import 50 ms; 15 ms without it).
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let serve = axum::serve(listener, router.clone()).with_graceful_shutdown(async move {
                let _ = stopped.wait_for(|stop| *stop).await;
            });
            tokio::spawn(serve.into_future());
        }
        Ok(BenchServer { origins, _stop: stop })
    }

    /// The origins served.
    pub fn origins(&self) -> &Origins {
        &self.origins
    }

    /// The URL of `path` (starting with `/`) on the parent's origin.
    pub fn parent_url(&self, path: &str) -> String {
        format!("{}{path}", self.origins.parent)
    }
}

async fn bind(ip: IpAddr, port: u16) -> Result<TcpListener, BenchError> {
    let address = SocketAddr::new(ip, port);
    TcpListener::bind(address).await.map_err(|source| BenchError::Bind { address: address.to_string(), source })
}

fn port_of(listener: &TcpListener) -> Result<u16, BenchError> {
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|source| BenchError::Bind { address: "a loopback port".into(), source })
}

fn router(dirs: &ServeDirs, origins: &Origins) -> Router {
    let header = |name: &'static str, value: &'static str| {
        SetResponseHeaderLayer::overriding(HeaderName::from_static(name), HeaderValue::from_static(value))
    };
    Router::new()
        .route("/origins.js", get(origins_js))
        .nest_service("/pkg", ServeDir::new(&dirs.pkg))
        .nest_service("/npm", ServeDir::new(&dirs.npm))
        .fallback_service(ServeDir::new(&dirs.pages))
        .with_state(origins.clone())
        .layer(SetResponseHeaderLayer::overriding(header::CACHE_CONTROL, HeaderValue::from_static("no-store")))
        .layer(header("cross-origin-opener-policy", "same-origin"))
        .layer(header("cross-origin-embedder-policy", "require-corp"))
        .layer(header("cross-origin-resource-policy", "cross-origin"))
        .layer(header("x-content-type-options", "nosniff"))
}

async fn origins_js(State(origins): State<Origins>) -> impl IntoResponse {
    let body = origins_module(&origins);
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], body)
}

/// The `/origins.js` module of a run.
pub fn origins_module(origins: &Origins) -> String {
    let quote = |s: &str| serde_json::Value::String(s.to_owned()).to_string();
    format!(
        "// Generated by interpane-bench: the origins of this run.\n\
         export const parentOrigin = {};\nexport const childOrigin = {};\n",
        quote(&origins.parent),
        quote(&origins.child)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origins_module_exports_both_origins() {
        let origins = Origins { parent: "http://127.0.0.1:1".into(), child: "http://localhost:2".into() };
        assert_eq!(
            origins_module(&origins),
            "// Generated by interpane-bench: the origins of this run.\n\
             export const parentOrigin = \"http://127.0.0.1:1\";\nexport const childOrigin = \"http://localhost:2\";\n"
        );
    }
}
