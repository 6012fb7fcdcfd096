//! Each call runs once (docs/once-only.md, issue 5), end to end in real Chromium across two origins: the caller
//! on the shop's origin, the provider's `charge` tool on pay's. Every scenario runs [`pages::REPETITIONS`] times;
//! each repetition reads the tool's real runs and the outcomes the caller's application saw from the demo
//! server's counters (which no page can fake), and checks that they are exactly the expected ones and that no
//! call is left pending. Tools are held open with server gates, never with sleeps.

#[path = "once_only/expectations.rs"]
mod expectations;
#[path = "once_only/journals.rs"]
mod journals;
#[path = "once_only/pages.rs"]
mod pages;
#[path = "once_only/reloads.rs"]
mod reloads;
#[path = "once_only/squatter.rs"]
mod squatter;
#[path = "once_only/stops.rs"]
mod stops;
#[path = "once_only/storage.rs"]
mod storage;
#[path = "once_only/tabs.rs"]
mod tabs;

use interpane_e2e::{Case, Engine, case};

pub fn cases() -> Vec<Case> {
    vec![
        case!("once::caller_reload_before_send", reloads::caller_reload_before_send),
        case!("once::caller_reload_during_the_run", reloads::caller_reload_during_the_run),
        case!(
            "once::caller_reload_after_the_result_before_delivery",
            reloads::caller_reload_after_the_result_before_delivery
        ),
        case!("once::provider_reload_during_the_run", reloads::provider_reload_during_the_run),
        case!(
            "once::provider_reload_while_the_tool_awaits_a_fetch",
            reloads::provider_reload_while_the_tool_awaits_a_fetch
        ),
        case!(
            "once::caller_reload_after_both_frames_loaded_together",
            reloads::caller_reload_after_both_frames_loaded_together
        ),
        case!("once::stop_before_start", stops::stop_before_start),
        case!("once::stop_during_the_run", stops::stop_during_the_run),
        case!("once::duplicate_tab_does_not_adopt_calls", tabs::duplicate_tab_does_not_adopt_calls),
        case!(
            "once::another_tab_observes_calls_and_never_runs_them",
            tabs::another_tab_observes_calls_and_never_runs_them
        ),
        case!(
            "once::same_origin_page_cannot_take_a_reloaded_tab",
            squatter::same_origin_page_cannot_take_a_reloaded_tab
        ),
        case!("once::bridge_loaded_twice_runs_each_call_once", tabs::bridge_loaded_twice_runs_each_call_once),
        case!("once::session_storage_blocked_for_the_caller", storage::session_storage_blocked_for_the_caller).only_in(
            &[Engine::Chromium],
            "blocks one site's storage through a Chromium profile preference (content_settings)",
        ),
        case!("once::session_storage_full_at_the_provider", storage::session_storage_full_at_the_provider),
        case!(
            "once::large_results_keep_the_callers_journal_in_storage",
            storage::large_results_keep_the_callers_journal_in_storage
        ),
    ]
}
