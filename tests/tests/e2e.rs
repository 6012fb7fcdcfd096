//! The end-to-end suite: real Chromium, four loopback origins. `cargo test -p interpane-e2e --test e2e [FILTER]`.

#[path = "e2e/attacks.rs"]
mod attacks;
#[path = "e2e/bfcache.rs"]
mod bfcache;
#[path = "e2e/cross_origin.rs"]
mod cross_origin;
#[path = "e2e/demo.rs"]
mod demo;
#[path = "e2e/harness.rs"]
mod harness;
#[path = "e2e/interop.rs"]
mod interop;
#[path = "e2e/modes.rs"]
mod modes;
#[path = "e2e/native.rs"]
mod native;
#[path = "e2e/native_parity.rs"]
mod native_parity;
#[path = "e2e/once_only.rs"]
mod once_only;
#[path = "e2e/reentrancy.rs"]
mod reentrancy;

use std::process::ExitCode;

fn main() -> ExitCode {
    interpane_e2e::run_cases(
        [
            harness::cases(),
            demo::cases(),
            attacks::cases(),
            bfcache::cases(),
            cross_origin::cases(),
            interop::cases(),
            native::cases(),
            native_parity::cases(),
            modes::cases(),
            once_only::cases(),
            reentrancy::cases(),
        ]
        .concat(),
    )
}
