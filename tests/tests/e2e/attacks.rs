//! The attacker, proven in real Chromium (issues 6 and 8): windows of other origins, a window of the right origin
//! that nobody asked, and sandboxed frames try every way into the shop, its widget and its payment provider.
//! Every attack gets exactly the answer it must, nothing runs (the server's counters), the widget keeps working,
//! and no bridge post names '*'. Also: stolen call ids, a 10,000-message flood, prototype pollution, and the
//! console warnings a page developer sees.

#[path = "attacks/arena.rs"]
mod arena;
#[path = "attacks/console.rs"]
mod console;
#[path = "attacks/flood.rs"]
mod flood;
#[path = "attacks/huge.rs"]
mod huge;
#[path = "attacks/journal.rs"]
mod journal;
#[path = "attacks/pollution.rs"]
mod pollution;
#[path = "attacks/requests.rs"]
mod requests;
#[path = "attacks/stolen_ids.rs"]
mod stolen_ids;

use interpane_e2e::{Case, Engine, case};

/// The flood and the huge message read `performance.memory` (with `--enable-precise-memory-info`) and collect
/// garbage on demand (`--js-flags=--expose-gc`): Chromium's alone.
const MEMORY_FIGURES: (&[Engine], &str) =
    (&[Engine::Chromium], "reads precise performance.memory and calls gc(): Chromium's flags");

pub fn cases() -> Vec<Case> {
    vec![
        case!("attacks::windows_that_see_nothing_get_nothing", requests::windows_that_see_nothing_get_nothing),
        case!("attacks::stolen_ids_do_not_steer_calls_in_flight", stolen_ids::stolen_ids_do_not_steer_calls_in_flight),
        case!(
            "attacks::a_strangers_extension_messages_leave_no_trace",
            journal::a_strangers_extension_messages_leave_no_trace
        ),
        case!("attacks::a_flood_does_not_stall_the_widget", flood::a_flood_does_not_stall_the_widget)
            .only_in(MEMORY_FIGURES.0, MEMORY_FIGURES.1),
        case!("attacks::refusals_warn_once_per_kind_and_origin", console::refusals_warn_once_per_kind_and_origin),
        case!("attacks::prototypes_stay_clean_in_both_directions", pollution::prototypes_stay_clean_in_both_directions),
        case!(
            "attacks::a_malicious_providers_list_over_the_limits_is_refused",
            pollution::a_malicious_providers_list_over_the_limits_is_refused
        ),
        case!(
            "attacks::a_poisoned_tool_list_reaches_the_page_without_proto_keys",
            pollution::a_poisoned_tool_list_reaches_the_page_without_proto_keys
        ),
        case!(
            "attacks::a_huge_message_is_refused_before_it_reaches_wasm_memory",
            huge::a_huge_message_is_refused_before_it_reaches_wasm_memory
        )
        .only_in(MEMORY_FIGURES.0, MEMORY_FIGURES.1),
    ]
}
