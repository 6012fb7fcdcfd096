//! The end-to-end suite: real Chromium, four loopback origins. `cargo test -p webmcp-e2e --test e2e [FILTER]`.

#[path = "e2e/demo.rs"]
mod demo;
#[path = "e2e/harness.rs"]
mod harness;

use std::process::ExitCode;

fn main() -> ExitCode {
    webmcp_e2e::run_cases([harness::cases(), demo::cases()].concat())
}
