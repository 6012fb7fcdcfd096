//! The interpane demo: four loopback origins that show the bridge at work, and the server behind them.
//!
//! ```no_run
//! use interpane_demo_sites::{DemoConfig, DemoServer, Site};
//!
//! # async fn run() -> Result<(), interpane_demo_sites::DemoError> {
//! // Every site on a free port, with the postMessage spy injected into every page.
//! let demo = DemoServer::start(DemoConfig::for_tests()).await?;
//! println!("open {}", demo.url(Site::Shop, "/"));
//! // ... drive a browser; the shop's tools count their executions where no page can fake them:
//! assert_eq!(demo.counter(Site::Shop, "add_to_cart"), 0);
//! demo.shutdown().await?;
//! # Ok(())
//! # }
//! ```
//!
//! | site | origin (default) | shows |
//! |---|---|---|
//! | shop | `http://127.0.0.1:8401` | a host page exposing tools to the widget and consuming `pay_invoice` |
//! | widget | `http://localhost:8402` | a chat-widget iframe that lists and calls the shop's tools |
//! | pay | `http://127.0.0.2:8403` | a provider iframe exposing `pay_invoice` to the shop only |
//! | evil | `http://127.0.0.3:8404` | an attacker that embeds shop and pay and gets nothing |
//!
//! Every origin serves its own `static/<site>/` folder, the shared `static/common/` at `/common/`, the bridge
//! package at `/pkg/`, its origins at `/config.js`, and the truth endpoints `/__counter/<name>`,
//! `/__counters`, `/__counters/reset` and `/__slow?ms=`, and the test gates `/__gate/<name>/...` ([`gates`]).
//! See `docs/demo.md`.

#![deny(missing_docs)]

pub mod cli;
mod config;
pub mod counters;
mod error;
pub mod gate_routes;
pub mod gates;
pub mod inject;
mod origins;
pub mod routes;
mod server;
mod site;

pub use config::{DemoConfig, SitePorts, default_pkg_dir, default_static_dir, workspace_root};
pub use error::DemoError;
pub use origins::Origins;
pub use server::{DemoServer, RunningDemo};
pub use site::Site;
