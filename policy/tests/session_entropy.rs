//! The session when the page's random bytes fail (`crypto.getRandomValues` throws): no request, call or handshake
//! id is made of zeros, of an earlier draw or of the clock. A call is refused with words that say why, a listing asks
//! no window and warns, a call from native that is refused fires no `toolresult`, and once the source works again
//! the ids are random again (issue 37, item 1).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "the helpers' checks are assertions (and clippy does not see wasm_bindgen_test functions as tests)"
)]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod session_support;

use std::cell::Cell;
use std::rc::Rc;

use interpane_policy::envelope::Message;
use interpane_policy::journal::CallOutcome;
use interpane_policy::session::{Effect, FromNative, Locator, PeerId, Registration, WaiterId};
use interpane_policy::{ErrorKind, ToolError};
use session_support::{Page, Seeded, Switched, T0, execute, list, tool};

const SHOP: &str = "https://shop.example";
const WIDGET: &str = "https://widget.example";

/// A shop page with one tool, `add`, whose random bytes come through a switch (on or off).
fn shop(on: bool) -> (Page, Rc<Cell<bool>>) {
    let switch = Rc::new(Cell::new(on));
    let entropy = Switched { on: Rc::clone(&switch), bytes: Seeded::new(7) };
    let mut page = Page::with_entropy(SHOP, WIDGET, Box::new(entropy));
    page.open();
    page.register(tool("add"));
    (page, switch)
}

/// 16 zero bytes written as an id: what an id of a zeroed pool reads as.
const ZEROS: &str = "AAAAAAAAAAAAAAAAAAAAAA";

fn no_id_of_zeros(page: &Page) {
    let text = format!("{:?}", page.effects);
    assert!(!text.contains(ZEROS), "an id of zeros: {text}");
}

#[test]
fn a_call_is_refused_with_words_when_the_random_bytes_fail_and_runs_once_they_work() {
    let (mut page, switch) = shop(false);
    switch.set(false);
    let effects = page.task(execute(5, PeerId::SELF, "add", "{}", None));
    let [Effect::Settle { waiter: WaiterId(5), outcome: CallOutcome::Failed(error) }] = effects.as_slice() else {
        panic!("the call settles as refused, and nothing else happens: {effects:?}");
    };
    assert_eq!(error.kind, ErrorKind::Refused);
    assert_eq!(
        error.message,
        "the call was not made: random numbers failed (crypto.getRandomValues threw OperationError: the test's \
         source is off)"
    );
    // The source works again: the next call is made, under a random id.
    switch.set(true);
    let effects = page.task(execute(6, PeerId::SELF, "add", "{}", None));
    assert!(effects.iter().any(|e| matches!(e, Effect::RunTool { .. })), "the tool runs: {effects:?}");
    no_id_of_zeros(&page);
}

#[test]
fn a_listing_asks_no_window_without_random_numbers_and_warns() {
    let (mut page, _switch) = shop(false);
    let effects = page.task(list(1, WIDGET, &[(1, Locator::Frame(0)), (2, Locator::Parent)]));
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::Post { message: Message::GetToolsRequest { .. }, .. })),
        "no window is asked: {effects:?}"
    );
    let warned = effects.iter().any(|e| matches!(e, Effect::Warn(text) if text.contains("random numbers")));
    assert!(warned, "the page is told why: {effects:?}");
    // At its time limit the listing ends with the page's own tools.
    let effects = page.advance_to(T0 + 60_000);
    let listed = effects.iter().find_map(|e| match e {
        Effect::Listed { waiter: WaiterId(1), tools } => Some(tools.len()),
        _ => None,
    });
    assert_eq!(listed, Some(1), "{effects:?}");
    no_id_of_zeros(&page);
}

#[test]
fn a_refused_call_from_native_fires_no_toolresult_without_a_random_call_id() {
    let (mut page, _switch) = shop(false);
    let call = FromNative { waiter: WaiterId(9), registration: Registration(99), name: "gone".into(), args: None };
    let effects = page.task(interpane_policy::session::Input::FromNative(call));
    let unregistered = ToolError::new(ErrorKind::UnknownTool, interpane_policy::session::UNREGISTERED_MESSAGE);
    let settle = Effect::Settle { waiter: WaiterId(9), outcome: CallOutcome::Failed(unregistered) };
    assert_eq!(effects, vec![settle], "native's caller gets its answer, and no toolresult has a made-up callId");
    no_id_of_zeros(&page);
}
