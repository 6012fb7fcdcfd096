//! How much sessionStorage a provider's journal takes when it returns large results, call after call, page after
//! page in one tab (the benchmark's 64 KiB calls: 220 per page, each acknowledged by its caller).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, reason = "assertions")]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod session_support;

use interpane_policy::envelope::{ExecuteRequest, Message};
use interpane_policy::journal::{JournalConfig, MemoryStore};
use interpane_policy::session::{Input, RunId, RunResult};
use session_support::{Page, from_window, json, name, rid, tool};

const SHOP: &str = "https://shop.example";
const WIDGET: &str = "https://widget.example";

#[test]
fn a_providers_log_stays_bounded_across_large_acknowledged_results_and_pages() {
    let result = format!("{{\"text\":\"{}\"}}", "x".repeat(65_536));
    let mut store = MemoryStore::durable();
    let mut most = 0;
    let mut seq = 0u32;
    for load in 0..6u64 {
        let mut page = Page::new(SHOP, WIDGET);
        page.store = store;
        page.now += load * 60_000;
        page.open();
        page.register(tool("echo"));
        let mut unacked = Vec::new();
        for call in 0..220u32 {
            seq += 1;
            let id = format!("c_{seq}");
            let request = Message::ExecuteRequest(ExecuteRequest {
                request_id: rid(&id),
                name: name("echo"),
                args: json("{}"),
                resend: false,
            });
            page.task(from_window(2, WIDGET, &request));
            let run = RunId(call + 1);
            page.task(Input::ToolSettled { run, result: RunResult::Returned(result.clone()) });
            unacked.push(rid(&id));
            // The caller acknowledges in batches, as its bridge does (64 at most, or after 250 ms).
            if unacked.len() == 64 {
                page.task(from_window(2, WIDGET, &Message::CallAck { request_ids: std::mem::take(&mut unacked) }));
            }
            // About 20 calls per journal flush (a call takes a few ms, a flush waits 50 ms for company).
            if call % 20 == 19 {
                let now = page.now + 60;
                page.advance_to(now);
            }
            most = most.max(page.store.used_bytes());
        }
        page.task(from_window(2, WIDGET, &Message::CallAck { request_ids: std::mem::take(&mut unacked) }));
        page.task(Input::GoingAway);
        store = std::mem::replace(&mut page.store, MemoryStore::new());
        eprintln!("after load {load}: {} bytes, the most {most}", store.used_bytes());
    }
    // The log holds a snapshot of the live data and segments of at most about as much again (then a snapshot
    // replaces them): with results held up to the default 256 KiB per origin and the ids of a day's calls, within
    // 2 MiB, where sessionStorage holds 5 M characters per origin. It took 7.5 MB here, and 4.7 M characters in
    // the benchmark before its quota ran out: the dead results in the segments were not counted.
    let bound = 8 * JournalConfig::default().held_result_bytes_per_origin_max;
    assert!(most < bound, "the provider's log took {most} bytes, more than {bound}");
}
