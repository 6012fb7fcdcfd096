//! The session as tables: inputs in, the exact effects out (who may list, call, cancel or connect, where each answer
//! goes, when a call settles). No browser: the effects are compared as values.
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

use interpane_policy::call_args::{CallArgsError, accept_call_args};
use interpane_policy::calls_channel::{self, ChannelMessage};
use interpane_policy::envelope::{ExecuteRequest, ExecuteResponse, GetToolsResponse, Message, ToolDescriptor};
use interpane_policy::journal::{CallOutcome, JournalStore, MemoryStore, OutcomeStatus};
use interpane_policy::session::{
    Answer, CallRefusal, CallRequest, CallTarget, Departure, Effect, HANDSHAKE_WAIT_MS, HELD_ERROR_MS, Input,
    LIVENESS_MS, ListedTool, Locator, ObservedCall, ObservedStatus, PeerId, PortId, RunId, RunResult, WaiterId,
    WindowFacts, WindowId,
};
use interpane_policy::{ArgSchema, ErrorCategory, ErrorKind, Limits, RequestId, ToolError, TupleOrigin};
use serde_json::json as value;
use session_support::{
    JournalSetup, Page, T0, execute, from_window, json, list, name, open_journals_with, origin as window_origin, rid,
    tool, tool_exposed_to, tuple, with_port,
};

const SHOP: &str = "https://shop.example";
const WIDGET: &str = "https://widget.example";
const EVIL: &str = "https://evil.example";

/// A post to `window` at exactly `origin`.
fn post(window: u32, origin: &str, message: Message) -> Effect {
    Effect::Post { window: WindowId(window), origin: tuple(origin), message, open_port: None }
}

fn descriptor(tool_name: &str, origin: &str) -> ToolDescriptor {
    let mut d = ToolDescriptor::new(name(tool_name), format!("The {tool_name} tool."));
    d.origin = Some(origin.to_owned());
    d
}

fn tools_response(request_id: &str, tools: Vec<ToolDescriptor>) -> Message {
    Message::GetToolsResponse(GetToolsResponse { request_id: rid(request_id), tools, bridge: true })
}

fn failure(request_id: &str, kind: ErrorKind, message: &str) -> Message {
    Message::ExecuteResponse(ExecuteResponse::failure(rid(request_id), ToolError::new(kind, message)))
}

fn execute_request(request_id: &str, tool_name: &str, args: &str) -> Message {
    Message::ExecuteRequest(ExecuteRequest {
        request_id: rid(request_id),
        name: name(tool_name),
        args: json(args),
        resend: false,
    })
}

/// A shop page (exposing its tools to the widget) with journals open and one tool, `add`.
fn shop() -> Page {
    let mut page = Page::new(SHOP, WIDGET);
    page.open();
    page.register(tool("add"));
    page
}

/// A widget page that listed the shop in window 1 (a plain peer, as an old WebMCP page is: no port); the shop's
/// peer id.
fn widget_with_plain_shop(open: bool) -> (Page, PeerId) {
    widget_with_shop(open, false)
}

/// A widget page that listed the shop in window 1, a bridge (whose port offer is left unanswered, so that the
/// widget's messages go by window); the shop's peer id.
fn widget_with_shop(open: bool, bridge: bool) -> (Page, PeerId) {
    let (page, peer, _) = widget_listing_shop(open, bridge);
    (page, peer)
}

/// [`widget_with_shop`], with the widget's `WEBMCP_CONNECT` to a bridge shop (its port and request id), left
/// unanswered.
fn widget_listing_shop(open: bool, bridge: bool) -> (Page, PeerId, Option<(PortId, RequestId, bool)>) {
    let mut page = Page::new(WIDGET, "");
    if open {
        page.open();
    }
    let mut effects = list_shop(&mut page, 1, vec![descriptor("add", SHOP)], bridge);
    let connect = bridge.then(|| match effects.remove(0) {
        Effect::Post {
            window: WindowId(1),
            origin,
            message: Message::Connect { request_id, utf8_batches },
            open_port: Some(port),
        } if origin.as_str() == SHOP => (port, request_id, utf8_batches),
        other => panic!("a port offered to the shop: {other:?}"),
    });
    let [Effect::Listed { waiter, tools }] = effects.as_slice() else { panic!("one listing: {effects:?}") };
    assert_eq!(*waiter, WaiterId(1));
    assert_eq!(tools.len(), 1);
    (page, tools[0].peer, connect)
}

/// The wire id of the one execute request among `effects`, posted to window 1 at the shop's origin.
fn sent_call(effects: &[Effect]) -> String {
    let ids: Vec<String> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Post { window: WindowId(1), origin, message: Message::ExecuteRequest(r), open_port: None }
                if origin.as_str() == SHOP =>
            {
                Some(r.request_id.as_str().to_owned())
            }
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 1, "one request to the shop's window: {effects:?}");
    ids[0].clone()
}

/// What among `effects` could reach a provider about a call: a request or a cancel by window, or any port batch.
fn reaching_provider<'a>(effects: impl IntoIterator<Item = &'a Effect>) -> Vec<&'a Effect> {
    let reaches = |e: &&Effect| {
        matches!(
            e,
            Effect::Post { message: Message::ExecuteRequest(_) | Message::CancelTool { .. }, .. }
                | Effect::PostBatch { .. }
        )
    };
    effects.into_iter().filter(reaches).collect()
}

fn settles(effects: &[Effect]) -> Vec<(WaiterId, CallOutcome)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Settle { waiter, outcome } => Some((*waiter, outcome.clone())),
            _ => None,
        })
        .collect()
}

fn tool_results(effects: &[Effect]) -> usize {
    effects.iter().filter(|e| matches!(e, Effect::ToolResult(_))).count()
}

#[test]
fn a_page_lists_its_own_tools_without_asking_anyone() {
    let mut page = Page::new(SHOP, "");
    let (_, effects) = page.register(tool("add"));
    assert_eq!(effects, vec![Effect::ToolChange]);
    page.register(tool_exposed_to("hidden", WIDGET));
    let effects = page.task(list(7, "", &[]));
    let own = |n: &str| ListedTool {
        descriptor: descriptor(n, SHOP),
        origin: window_origin(SHOP),
        peer: PeerId::SELF,
        window: WindowId::SELF,
    };
    // Its own tools all, whoever they are exposed to: the page's origin always sees its tools.
    assert_eq!(effects, vec![Effect::Listed { waiter: WaiterId(7), tools: vec![own("add"), own("hidden")] }]);
}

#[test]
fn tool_lists_hold_what_the_asking_origin_may_see() {
    // (caller origin, tools the response holds)
    let table: [(&str, &[&str]); 4] = [
        (WIDGET, &["add", "for_widget"]),
        (SHOP, &["add", "for_widget", "for_evil"]),
        (EVIL, &["for_evil"]),
        ("https://other.example", &[]),
    ];
    for (i, (caller, expected)) in table.into_iter().enumerate() {
        let mut page = shop();
        page.register(tool_exposed_to("for_widget", WIDGET));
        page.register(tool_exposed_to("for_evil", EVIL));
        let request = Message::GetToolsRequest { request_id: rid(&format!("g_{i}")), bridge: true };
        let effects = page.task(from_window(3, caller, &request));
        let tools = expected.iter().map(|n| descriptor(n, SHOP)).collect();
        assert_eq!(effects, vec![post(3, caller, tools_response(&format!("g_{i}"), tools))], "{caller}");
    }
}

#[test]
fn an_origin_that_sees_nothing_gets_an_empty_list_and_no_change_notices() {
    let mut page = shop();
    let ask = |id: &str| Message::GetToolsRequest { request_id: rid(id), bridge: true };
    assert_eq!(page.task(from_window(4, EVIL, &ask("g_evil"))), vec![post(4, EVIL, tools_response("g_evil", vec![]))]);
    assert_eq!(
        page.task(from_window(2, WIDGET, &ask("g_w"))),
        vec![post(2, WIDGET, tools_response("g_w", vec![descriptor("add", SHOP)]))]
    );
    // A tool for the widget only: the widget is told, the evil origin is not (it saw nothing before or after);
    // the windows around at the widget's origin hear of it too, whether they listed or not.
    let (_, effects) = page.register(tool_exposed_to("more", WIDGET));
    let around = Effect::PostAround { message: Message::ToolsChanged, origins: vec![tuple(WIDGET)] };
    assert_eq!(effects, vec![post(2, WIDGET, Message::ToolsChanged), Effect::ToolChange, around]);
    // A tool for the shop's own origin only: the widget cannot see it, so its list does not change and it is told
    // nothing, though it sees another tool.
    let (registration, effects) = page.register(tool_exposed_to("private", SHOP));
    assert_eq!(effects, vec![Effect::ToolChange]);
    assert_eq!(page.unregister("private", Some(registration)), Some(registration));
    let effects = page.drain();
    assert_eq!(effects, vec![Effect::ToolChange]);
    let to_evil: Vec<_> =
        page.effects.iter().filter(|e| matches!(e, Effect::Post { window: WindowId(4), .. })).collect();
    assert_eq!(to_evil, vec![&post(4, EVIL, tools_response("g_evil", vec![]))]);
}

/// A window hears of a change only when what it can list changed (issue 37; web-platform-tests'
/// exposedTo-cross-origin-child, "Iframe exposes tool to origin that is neither its own nor its parent's"): a
/// provider told every window that listed it and saw any of its tools, so a frame's tool for a third origin made its
/// parent list again and fire `toolchange`. Now only a window whose origin can see the tool that changed is told.
#[test]
fn a_tool_for_a_third_origin_is_announced_to_no_window_that_cannot_see_it() {
    const PAY: &str = "https://pay.example";
    // The widget (a frame) exposes `for_shop` to the shop, and the shop (its parent, a bridge) listed it.
    let mut widget = Page::new(WIDGET, "");
    widget.open();
    widget.register(tool_exposed_to("for_shop", SHOP));
    let ask = Message::GetToolsRequest { request_id: rid("g_shop"), bridge: true };
    let listed = tools_response("g_shop", vec![descriptor("for_shop", WIDGET)]);
    assert_eq!(widget.task(from_window(1, SHOP, &ask)), vec![post(1, SHOP, listed)]);

    // A tool for pay only, and its removal: the shop is told nothing (the windows around at pay's origin hear of the
    // new tool, as a window there may list it).
    let (registration, effects) = widget.register(tool_exposed_to("for_pay", PAY));
    let around_pay = Effect::PostAround { message: Message::ToolsChanged, origins: vec![tuple(PAY)] };
    assert_eq!(effects, vec![Effect::ToolChange, around_pay]);
    assert_eq!(widget.unregister("for_pay", Some(registration)), Some(registration));
    assert_eq!(widget.drain(), vec![Effect::ToolChange]);

    // A tool for the shop, and its removal: the shop is told of each.
    let (registration, effects) = widget.register(tool_exposed_to("for_shop_too", SHOP));
    let around_shop = Effect::PostAround { message: Message::ToolsChanged, origins: vec![tuple(SHOP)] };
    assert_eq!(effects, vec![post(1, SHOP, Message::ToolsChanged), Effect::ToolChange, around_shop]);
    assert_eq!(widget.unregister("for_shop_too", Some(registration)), Some(registration));
    assert_eq!(widget.drain(), vec![post(1, SHOP, Message::ToolsChanged), Effect::ToolChange]);
}

/// Every tool is held to the same rules whichever API registers it (issue 37): the session refuses an empty
/// description, and a schema or annotations that are not a JSON object within the page's limits, with the words the
/// JavaScript API has always used. The tool is not registered and nothing is announced.
#[test]
fn the_session_holds_every_tool_to_the_same_rules() {
    use interpane_policy::session::RegisterError;
    let mut page = Page::new(SHOP, "");
    page.open();
    let deep = format!("{}1{}", r#"{"a":"#.repeat(100), "}".repeat(100));
    let mut empty = tool("empty");
    empty.description = String::new();
    let mut deep_schema = tool("deep");
    deep_schema.input_schema = Some(interpane_policy::JsonText::from_value(&serde_json::from_str(&deep).unwrap()));
    let mut list_annotations = tool("listed");
    list_annotations.annotations = Some(json("[1, 2]"));
    let cases = [
        (empty, "registerTool(empty): tool.description must not be empty"),
        (deep_schema, "registerTool(deep): inputSchema nesting deeper than 64 levels"),
        (list_annotations, "registerTool(listed): annotations must be an object"),
    ];
    for (spec, words) in cases {
        let name = spec.name.to_string();
        let answer = page.session.handle(Input::Register { spec: Box::new(spec) }, page.now);
        let Answer::Registered(Err(error)) = answer else { panic!("{name}: answered {answer:?}") };
        assert!(matches!(error, RegisterError::EmptyDescription(_) | RegisterError::Field { .. }), "{name}: {error:?}");
        assert_eq!(error.to_string(), words, "{name}");
        assert_eq!(page.drain(), vec![], "{name}: nothing registered, nothing announced");
    }
    let listed = page.task(list(1, "", &[]));
    assert_eq!(listed, vec![Effect::Listed { waiter: WaiterId(1), tools: vec![] }], "no tool listed");
}

/// A notice makes a page list the window again, and `toolchange` fires only when that window's list changed (issue
/// 37: a window hears `toolchange` only when what it can list changed): a window that sends notices while its list
/// stays the same, as an old bridge or a hostile page may, fires nothing.
#[test]
fn a_notice_fires_toolchange_only_when_the_windows_list_changed() {
    let mut shop = shop();
    let frame = WindowFacts { locator: Locator::Frame(0), ancestor: false };
    assert_eq!(shop.task(Input::WindowSeen { window: WindowId(5), facts: frame }), vec![]);
    // Each notice: the relist after the debounce (300 ms), answered at once with `tools`; what the answer's task
    // queued.
    let mut at = T0;
    let mut notice_then_answer = |shop: &mut Page, tools: Vec<ToolDescriptor>| {
        assert_eq!(shop.task(from_window(5, WIDGET, &Message::ToolsChanged)), vec![]);
        at += 300;
        let asked: Vec<RequestId> = shop
            .advance_to(at)
            .into_iter()
            .filter_map(|effect| match effect {
                Effect::Post {
                    window: WindowId(5),
                    origin,
                    message: Message::GetToolsRequest { request_id, .. },
                    ..
                } if origin.as_str() == WIDGET => Some(request_id),
                _ => None,
            })
            .collect();
        assert_eq!(asked.len(), 1, "one relist per notice at the widget's origin: {asked:?}");
        let response = GetToolsResponse { request_id: asked[0].clone(), tools, bridge: false };
        shop.task(from_window(5, WIDGET, &Message::GetToolsResponse(response)))
    };
    let one = vec![descriptor("for_shop", WIDGET)];
    let two = vec![descriptor("for_shop", WIDGET), descriptor("also_for_shop", WIDGET)];
    assert_eq!(notice_then_answer(&mut shop, one.clone()), vec![Effect::ToolChange], "a first tool");
    assert_eq!(notice_then_answer(&mut shop, one.clone()), vec![], "the same list again");
    assert_eq!(notice_then_answer(&mut shop, one.clone()), vec![], "and again");
    assert_eq!(notice_then_answer(&mut shop, two), vec![Effect::ToolChange], "a tool more");
    assert_eq!(notice_then_answer(&mut shop, one), vec![Effect::ToolChange], "a tool less");
    assert_eq!(notice_then_answer(&mut shop, vec![]), vec![Effect::ToolChange], "none left");
    assert_eq!(notice_then_answer(&mut shop, vec![]), vec![], "still none");
}

#[test]
fn a_new_tool_is_announced_at_its_exposed_origins_and_a_window_there_lists_it() {
    // The provider: a tool exposed to the shop (and to its own origin, which needs no notice) is announced to the
    // windows around at the shop's origin; a tool without exposedTo is not announced around at all.
    let mut widget = Page::new(WIDGET, "");
    widget.open();
    let mut spec = tool_exposed_to("for_shop", SHOP);
    spec.exposed_to = Some(interpane_policy::OriginList::parse(&format!("{SHOP}, {WIDGET}")).unwrap());
    let (_, effects) = widget.register(spec);
    assert_eq!(
        effects,
        vec![Effect::ToolChange, Effect::PostAround { message: Message::ToolsChanged, origins: vec![tuple(SHOP)] }]
    );
    let (_, effects) = widget.register(tool("private"));
    assert_eq!(effects, vec![Effect::ToolChange]);

    // The shop, which never asked about the widget's origin: the notice from its frame makes it list that window
    // (that origin's tools only) after the debounce, and fire toolchange once the answer is in.
    let mut shop = shop();
    let frame = WindowFacts { locator: Locator::Frame(0), ancestor: false };
    assert_eq!(shop.task(Input::WindowSeen { window: WindowId(5), facts: frame }), vec![]);
    let effects = shop.task(from_window(5, WIDGET, &Message::ToolsChanged));
    assert_eq!(effects, vec![]);
    let effects = shop.advance_to(T0 + 1_000);
    let asked: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Post {
                window: WindowId(5), origin, message: Message::GetToolsRequest { request_id, .. }, ..
            } if origin.as_str() == WIDGET => Some(request_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 1, "the widget's window is asked once at its origin: {effects:?}");
    let response = Message::GetToolsResponse(GetToolsResponse {
        request_id: asked[0].clone(),
        tools: vec![descriptor("for_shop", WIDGET)],
        bridge: false,
    });
    let effects = shop.task(from_window(5, WIDGET, &response));
    assert_eq!(effects, vec![Effect::ToolChange]);

    // An opaque sender is not listed: no message can be addressed to it.
    let effects = shop.task(from_window(6, "null", &Message::ToolsChanged));
    assert!(
        shop.advance_to(T0 + 3_000).iter().all(|e| !matches!(e, Effect::Post { window: WindowId(6), .. })),
        "{effects:?}"
    );
    // Nor a window outside the shop's frame tree (its opener, a popup): the spec's toolchange reaches only the
    // frame tree, and the page lists other windows at the origins it names.
    for (window, locator) in [(7, Locator::Opener), (8, Locator::Unknown)] {
        let facts = WindowFacts { locator, ancestor: false };
        assert_eq!(shop.task(Input::WindowSeen { window: WindowId(window), facts }), vec![]);
        assert_eq!(shop.task(from_window(window, "https://evil.example", &Message::ToolsChanged)), vec![]);
    }
    let effects = shop.advance_to(T0 + 5_000);
    assert!(
        effects.iter().all(|e| !matches!(e, Effect::Post { window: WindowId(7 | 8), .. })),
        "no window outside the frame tree is asked: {effects:?}"
    );
}

/// The widget lists the shop (in window 1, asked once, by window) and the shop answers with `tools`, as a bridge or
/// not: what the answer's task queued.
fn list_shop(page: &mut Page, waiter: u64, tools: Vec<ToolDescriptor>, bridge: bool) -> Vec<Effect> {
    let effects = page.handle(list(waiter, SHOP, &[(1, Locator::Frame(0))]));
    let asked: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Post { window, origin, message: Message::GetToolsRequest { request_id, .. }, .. }
                if *window == WindowId(1) && origin.as_str() == SHOP =>
            {
                Some(request_id.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 1, "listing {waiter}: the shop's window is asked once at the shop's origin: {effects:?}");
    let response = Message::GetToolsResponse(GetToolsResponse { request_id: asked[0].clone(), tools, bridge });
    page.task(from_window(1, SHOP, &response))
}

fn connects(effects: &[Effect]) -> Vec<PortId> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Post { message: Message::Connect { .. }, open_port: Some(port), .. } => Some(*port),
            _ => None,
        })
        .collect()
}

/// A provider refuses a port from an origin that sees none of its tools, and its refusal only closes the port: a
/// consumer that offered one after an empty listing (the provider's tools not registered yet, or exposed to others
/// only) waited for an answer that never came, and kept calling by window messages for good. Now a port is offered
/// once the peer listed a tool, and a handshake with no answer is given up and started again at a later listing.
#[test]
fn a_port_is_offered_once_a_tool_is_listed_and_offered_again_when_the_answer_never_came() {
    let mut page = Page::new(WIDGET, "");
    page.open();
    assert_eq!(connects(&list_shop(&mut page, 1, vec![], true)), vec![], "no tool listed: no port");
    let first = connects(&list_shop(&mut page, 2, vec![descriptor("add", SHOP)], true));
    assert_eq!(first.len(), 1, "a tool listed: a port");
    // Within the wait, another listing starts nothing new.
    page.now += HANDSHAKE_WAIT_MS - 1;
    let effects = list_shop(&mut page, 3, vec![descriptor("add", SHOP)], true);
    assert!(connects(&effects).is_empty() && !effects.contains(&Effect::ClosePort(first[0])), "{effects:?}");
    // After it, the unanswered port is closed and another is offered.
    page.now += 1;
    let effects = list_shop(&mut page, 4, vec![descriptor("add", SHOP)], true);
    assert!(effects.contains(&Effect::ClosePort(first[0])), "{effects:?}");
    let second = connects(&effects);
    assert_eq!(second.len(), 1, "{effects:?}");
    assert_ne!(second, first);
    // Its answer is taken; a late answer on the first port is not.
    let answer = |id: &str| format!("[{}]", Message::Connected { request_id: rid(id), utf8_batches: true }.encode());
    let request_id = |effects: &[Effect]| {
        effects.iter().find_map(|e| match e {
            Effect::Post { message: Message::Connect { request_id, .. }, .. } => Some(request_id.as_str().to_owned()),
            _ => None,
        })
    };
    let second_id = request_id(&effects).expect("a connect");
    assert_eq!(page.task(Input::PortBatch { port: second[0], text: answer(&second_id) }), vec![]);
    // Connected: the next listing asks on that port.
    let effects = page.task(list(5, SHOP, &[(1, Locator::Frame(0))]));
    assert!(effects.iter().any(|e| matches!(e, Effect::PostBatch { port, .. } if *port == second[0])), "{effects:?}");
}

#[test]
fn connects_are_accepted_by_window_from_an_origin_that_sees_a_tool_only() {
    let mut page = shop();
    let connect = Message::Connect { request_id: rid("p_1"), utf8_batches: false };
    // The evil origin sees no tool: its port is closed, never accepted.
    let port = page.port();
    let effects = page.task(with_port(4, EVIL, &connect, port));
    assert_eq!(
        effects,
        vec![
            Effect::ClosePort(port),
            Effect::Warn(format!("refused a private port from an origin that sees no tool from {EVIL}"))
        ]
    );
    // The widget sees `add`: its port is kept, and the answer goes on it.
    let port = page.port();
    let effects = page.task(with_port(2, WIDGET, &connect, port));
    assert_eq!(
        effects,
        vec![
            Effect::AcceptPort(port),
            Effect::PostBatch {
                port,
                batch: format!("[{}]", Message::Connected { request_id: rid("p_1"), utf8_batches: true }.encode()),
                utf8: false
            }
        ]
    );
    // A connect that comes on that port (a port cannot be handed over on a port) changes nothing.
    let again = Message::Connect { request_id: rid("p_2"), utf8_batches: false };
    let batch = format!("[{}]", again.encode());
    assert_eq!(page.task(Input::PortBatch { port, text: batch }), vec![]);
    // Nor does a connect by window without a port.
    assert_eq!(page.task(from_window(2, WIDGET, &again)), vec![]);
    // The port still carries the widget's requests, and the answers go back on it.
    let ask = Message::GetToolsRequest { request_id: rid("g_on_port"), bridge: true };
    let effects = page.task(Input::PortBatch { port, text: format!("[{}]", ask.encode()) });
    let answer = tools_response("g_on_port", vec![descriptor("add", SHOP)]);
    assert_eq!(effects, vec![Effect::PostBatch { port, batch: format!("[{}]", answer.encode()), utf8: false }]);
    // A widget that says it reads UTF-8 bytes gets its batches as bytes (a new port replaces the first).
    let port = page.port();
    let reads_bytes = Message::Connect { request_id: rid("p_3"), utf8_batches: true };
    let effects = page.task(with_port(2, WIDGET, &reads_bytes, port));
    assert!(
        effects.iter().any(|e| matches!(e, Effect::PostBatch { port: on, utf8: true, .. } if *on == port)),
        "{effects:?}"
    );
    let effects = page.task(Input::PortBatch { port, text: format!("[{}]", ask.encode()) });
    assert_eq!(effects, vec![Effect::PostBatch { port, batch: format!("[{}]", answer.encode()), utf8: true }]);
}

/// A port message the driver could not read as a batch (over the size limit; neither a string nor UTF-8 bytes)
/// is refused with a warning naming the port's origin, and the port keeps working.
#[test]
fn unread_port_batches_are_refused_with_a_warning() {
    for (unread, what) in [
        (Input::OversizedBatch as fn(_) -> Input, "a port batch larger than the limit, unread"),
        (Input::UnreadableBatch, "a port message that is neither a string nor UTF-8 bytes, unread"),
    ] {
        let mut page = shop();
        let port = page.port();
        page.task(with_port(2, WIDGET, &Message::Connect { request_id: rid("p_1"), utf8_batches: true }, port));
        let effects = page.task(unread(port));
        assert!(
            matches!(effects.as_slice(), [Effect::Warn(text)] if text.contains(what) && text.ends_with(WIDGET)),
            "{effects:?}"
        );
        let ask = Message::GetToolsRequest { request_id: rid("g_after"), bridge: true };
        let effects = page.task(Input::PortBatch { port, text: format!("[{}]", ask.encode()) });
        assert!(matches!(effects.as_slice(), [Effect::PostBatch { utf8: true, .. }]), "{effects:?}");
    }
}

/// The consumer's side: its `WEBMCP_CONNECT` says it reads UTF-8 bytes, and its own batches go as bytes only when
/// the provider's `WEBMCP_CONNECTED` said so too (an older bridge, which does not, gets strings).
#[test]
fn a_consumer_posts_bytes_only_to_a_provider_that_reads_them() {
    for provider_reads_bytes in [false, true] {
        let (mut page, peer, connect) = widget_listing_shop(true, true);
        let Some((port, connect_id, true)) = connect else {
            panic!("a port offered, saying it reads bytes: {connect:?}")
        };
        let connected = Message::Connected { request_id: connect_id, utf8_batches: provider_reads_bytes };
        page.task(Input::PortBatch { port, text: format!("[{}]", connected.encode()) });
        let effects = page.task(execute(2, peer, "add", "{}", None));
        let posted: Vec<bool> = effects
            .iter()
            .filter_map(|e| match e {
                Effect::PostBatch { port: on, utf8, .. } if *on == port => Some(*utf8),
                _ => None,
            })
            .collect();
        assert_eq!(posted, vec![provider_reads_bytes], "{effects:?}");
    }
}

#[test]
fn answers_on_a_port_leave_in_batches_of_16_while_the_task_goes_on() {
    let mut page = shop();
    let port = page.port();
    page.task(with_port(2, WIDGET, &Message::Connect { request_id: rid("p_1"), utf8_batches: false }, port));
    // 64 calls (the most one origin may have in flight) in one port batch: 64 runs.
    let requests: Vec<String> = (0..64).map(|i| execute_request(&format!("c_{i}"), "add", "{}").encode()).collect();
    let effects = page.task(Input::PortBatch { port, text: format!("[{}]", requests.join(",")) });
    let runs: Vec<RunId> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::RunTool { run, .. } => Some(*run),
            _ => None,
        })
        .collect();
    assert_eq!(runs.len(), 64, "{effects:?}");
    // The tools settle in two tasks, 40 then 24: within a task every 16th answer sends the 16 gathered at once,
    // and the end of the task sends the rest.
    let mut batches = Vec::new();
    for (task, runs) in [&runs[..40], &runs[40..]].into_iter().enumerate() {
        for (i, run) in runs.iter().enumerate() {
            let result = RunResult::Returned(format!("{{\"n\":{i}}}"));
            for effect in page.handle(Input::ToolSettled { run: *run, result }) {
                if let Effect::PostBatch { port: on, batch, .. } = effect {
                    assert_eq!(on, port);
                    batches.push((task, Some(i), batch));
                }
            }
        }
        for effect in page.handle(Input::EndOfTask) {
            if let Effect::PostBatch { port: on, batch, .. } = effect {
                assert_eq!(on, port);
                batches.push((task, None, batch));
            }
        }
    }
    let sizes: Vec<(usize, Option<usize>, usize)> =
        batches.iter().map(|(task, at, batch)| (*task, *at, session_support::batch_messages(batch).len())).collect();
    assert_eq!(sizes, vec![(0, Some(15), 16), (0, Some(31), 16), (0, None, 8), (1, Some(15), 16), (1, None, 8)]);
    // Every call answered once, in order.
    let answered: Vec<String> = batches
        .iter()
        .flat_map(|(_, _, batch)| session_support::batch_messages(batch))
        .filter_map(|m| match m {
            Message::ExecuteResponse(ExecuteResponse { request_id, .. }) => Some(request_id.as_str().to_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(answered, (0..64).map(|i| format!("c_{i}")).collect::<Vec<_>>());
}

#[test]
fn port_batches_stay_within_the_byte_limit() {
    // A peer refuses a batch over `max_batch_bytes` unread: answers that together pass it go in several batches.
    let limits = Limits { max_batch_bytes: 2_000, ..Limits::default() };
    let mut page = Page::with_limits(SHOP, WIDGET, 1, limits);
    page.open();
    page.register(tool("add"));
    let port = page.port();
    page.task(with_port(2, WIDGET, &Message::Connect { request_id: rid("p_1"), utf8_batches: false }, port));
    let requests: Vec<String> = (0..10).map(|i| execute_request(&format!("c_{i}"), "add", "{}").encode()).collect();
    let effects = page.task(Input::PortBatch { port, text: format!("[{}]", requests.join(",")) });
    let runs: Vec<RunId> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::RunTool { run, .. } => Some(*run),
            _ => None,
        })
        .collect();
    assert_eq!(runs.len(), 10, "{effects:?}");
    // Ten answers of over 300 bytes in one task: more than the limit, fewer than 16 answers.
    let mut batches = Vec::new();
    for run in runs {
        let result = RunResult::Returned(format!("\"{}\"", "r".repeat(300)));
        batches.extend(page.handle(Input::ToolSettled { run, result }));
    }
    batches.extend(page.handle(Input::EndOfTask));
    let batches: Vec<String> = batches
        .into_iter()
        .filter_map(|e| match e {
            Effect::PostBatch { batch, .. } => Some(batch),
            _ => None,
        })
        .collect();
    let total: usize = batches.iter().map(String::len).sum();
    assert!(total > 2_000 && batches.len() >= 2, "{} batches, {total} bytes", batches.len());
    for batch in &batches {
        assert!(batch.len() <= 2_000, "a batch of {} bytes", batch.len());
    }
    let answered: Vec<String> = batches
        .iter()
        .flat_map(|batch| session_support::batch_messages(batch))
        .filter_map(|m| match m {
            Message::ExecuteResponse(ExecuteResponse { request_id, .. }) => Some(request_id.as_str().to_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(answered, (0..10).map(|i| format!("c_{i}")).collect::<Vec<_>>());
}

#[test]
fn a_call_of_a_tool_the_origin_cannot_see_is_unknown_and_answered_to_the_asker_only() {
    // (asker window, asker origin, tool): each answered as a tool that does not exist, at the asker's origin.
    let table = [(4, EVIL, "add"), (2, WIDGET, "private"), (2, WIDGET, "missing"), (5, "https://x.example", "add")];
    for (i, (window, origin, tool_name)) in table.into_iter().enumerate() {
        let mut page = shop();
        page.register(tool_exposed_to("private", SHOP));
        // Another window of the same origin has listed the tools: it hears nothing of this call.
        let ask = Message::GetToolsRequest { request_id: rid("g_1"), bridge: true };
        page.task(from_window(9, origin, &ask));
        let id = format!("c_{i}");
        let effects = page.task(from_window(window, origin, &execute_request(&id, tool_name, "{}")));
        assert_eq!(
            effects,
            vec![
                Effect::Warn(format!("refused a call of {tool_name}, a tool it cannot see from {origin}")),
                post(window, origin, failure(&id, ErrorKind::UnknownTool, &format!("Tool {tool_name} not found"))),
            ],
            "{origin} calling {tool_name}"
        );
    }
}

#[test]
fn invalid_arguments_are_refused_before_the_tool_runs() {
    let schema = value!({
        "type": "object",
        "properties": { "sku": { "type": "string" }, "qty": { "type": "integer", "minimum": 1 } },
        "required": ["sku"],
        "additionalProperties": false
    });
    let checker = ArgSchema::compile(&schema).unwrap();
    // (arguments, runs)
    let table = [
        (r#"{"sku":"a1","qty":2}"#, true),
        (r#"{"sku":"a1"}"#, true),
        (r#"{"qty":2}"#, false),
        (r#"{"sku":"a1","qty":0}"#, false),
        (r#"{"sku":7}"#, false),
        (r#"{"sku":"a1","extra":true}"#, false),
    ];
    for (i, (args, runs)) in table.into_iter().enumerate() {
        let mut page = Page::new(SHOP, WIDGET);
        page.open();
        let mut spec = tool("add");
        spec.checker = Some(ArgSchema::compile(&schema).unwrap());
        let (registration, _) = page.register(spec);
        let id = format!("c_{i}");
        let effects = page.task(from_window(2, WIDGET, &execute_request(&id, "add", args)));
        if runs {
            assert_eq!(effects, vec![Effect::RunTool { run: RunId(1), registration, args: json(args) }], "{args}");
        } else {
            let problem = checker.check(&serde_json::from_str(args).unwrap()).unwrap_err();
            let message = problem.to_message("invalid arguments for add: ");
            assert_eq!(effects, vec![post(2, WIDGET, failure(&id, ErrorKind::InvalidArgs, &message))], "{args}");
            // A repeat of the request repeats the answer; the tool still does not run.
            let again = page.task(from_window(2, WIDGET, &execute_request(&id, "add", args)));
            assert_eq!(again, vec![post(2, WIDGET, failure(&id, ErrorKind::InvalidArgs, &message))], "{args}");
        }
    }
}

#[test]
fn a_request_before_the_journals_open_waits_and_runs_after() {
    let mut page = Page::new(SHOP, WIDGET);
    let (registration, _) = page.register(tool("add"));
    assert_eq!(page.task(from_window(2, WIDGET, &execute_request("c_early", "add", "{}"))), vec![]);
    let effects = page.open();
    assert!(effects.contains(&Effect::RunTool { run: RunId(1), registration, args: json("{}") }), "{effects:?}");
    assert_eq!(effects.last(), Some(&Effect::Ready));
    let effects = page.task(Input::ToolSettled { run: RunId(1), result: RunResult::Returned("{\"ok\":1}".into()) });
    let answer =
        Message::ExecuteResponse(ExecuteResponse { request_id: rid("c_early"), outcome: Ok(json("{\"ok\":1}")) });
    assert_eq!(effects, vec![post(2, WIDGET, answer)]);
}

#[test]
fn an_execute_before_the_journals_open_waits_and_is_sent_after() {
    let (mut page, shop_peer) = widget_with_plain_shop(false);
    assert_eq!(page.task(execute(5, shop_peer, "add", "{}", None)), vec![]);
    // Ready as the journals open; the request leaves at the end of that task.
    let effects = page.open();
    let wire = sent_call(&effects);
    let ready = effects.iter().position(|e| *e == Effect::Ready).expect("ready");
    assert!(effects[ready..].iter().any(|e| matches!(e, Effect::Post { .. })), "{effects:?}");
    assert!(settles(&effects).is_empty());
    let answer = Message::ExecuteResponse(ExecuteResponse { request_id: rid(&wire), outcome: Ok(json("3")) });
    let effects = page.task(from_window(1, SHOP, &answer));
    assert_eq!(settles(&effects), vec![(WaiterId(5), CallOutcome::Completed { result: json("3") })]);
    assert_eq!(tool_results(&effects), 1);
}

#[test]
fn a_response_from_a_window_that_was_not_the_provider_is_refused_and_the_call_stays_pending() {
    let (mut page, shop_peer) = widget_with_plain_shop(true);
    let wire = sent_call(&page.task(execute(5, shop_peer, "add", "{}", None)));
    let forged = |outcome: &str| {
        Message::ExecuteResponse(ExecuteResponse { request_id: rid(&wire), outcome: Ok(json(outcome)) })
    };
    // (window, origin): another window of the shop's origin, the shop's window at another origin, a third party.
    let table = [(2, SHOP), (1, EVIL), (3, EVIL)];
    for (window, origin) in table {
        let effects = page.task(from_window(window, origin, &forged("\"forged\"")));
        let warned = effects.iter().filter(|e| matches!(e, Effect::Warn(w) if w == &format!("refused a call result nobody waits for from {origin}"))).count();
        assert!(settles(&effects).is_empty() && tool_results(&effects) == 0, "{window} {origin}: {effects:?}");
        assert!(effects.iter().all(|e| matches!(e, Effect::Warn(_))), "{effects:?}");
        assert!(warned <= 1);
    }
    // The warnings: one per origin (the gate prints one per origin and kind a minute).
    let warns: Vec<_> = page
        .effects
        .iter()
        .filter(|e| matches!(e, Effect::Warn(w) if w.starts_with("refused a call result")))
        .collect();
    assert_eq!(warns.len(), 2, "{warns:?}");
    // The real provider still settles it, once.
    let effects = page.task(from_window(1, SHOP, &forged("1")));
    assert_eq!(settles(&effects), vec![(WaiterId(5), CallOutcome::Completed { result: json("1") })]);
    assert_eq!(tool_results(&effects), 1);
    // A second answer from the provider settles nothing.
    let effects = page.task(from_window(1, SHOP, &forged("2")));
    assert!(settles(&effects).is_empty() && tool_results(&effects) == 0, "{effects:?}");
}

#[test]
fn a_call_with_a_time_limit_settles_once_at_its_deadline() {
    let (mut page, shop_peer) = widget_with_shop(true, true);
    let start = page.now;
    let wire = sent_call(&page.task(execute(5, shop_peer, "add", "{}", Some(1_200))));
    let mut settled = Vec::new();
    let mut when = Vec::new();
    while let Some(at) = page.session.poll_timeout() {
        if at > start + 5_000 {
            break;
        }
        let effects = page.advance_to(at);
        for effect in &effects {
            if let Effect::ProbeWindows(windows) = effect {
                assert_eq!(windows, &vec![WindowId(1)]);
                let more = page.task(Input::WindowsClosed(vec![]));
                assert!(settles(&more).is_empty(), "{more:?}");
            }
        }
        if !settles(&effects).is_empty() {
            when.push(page.now);
        }
        settled.extend(settles(&effects));
    }
    let timed_out = ToolError::new(
        ErrorKind::Timeout,
        "no answer came within the call's time limit; the provider was asked to stop it",
    );
    assert_eq!(settled, vec![(WaiterId(5), CallOutcome::Failed(timed_out))]);
    assert_eq!(when, vec![start + 1_200]);
    assert_eq!(tool_results(&page.effects), 1);
    // The provider was told to stop it, at its window.
    assert!(
        page.effects.contains(&post(1, SHOP, Message::CancelTool { request_id: rid(&wire) })),
        "{:?}",
        page.effects
    );
    // A late answer changes nothing.
    let late = Message::ExecuteResponse(ExecuteResponse { request_id: rid(&wire), outcome: Ok(json("1")) });
    let effects = page.task(from_window(1, SHOP, &late));
    assert!(settles(&effects).is_empty() && tool_results(&effects) == 0, "{effects:?}");
}

#[test]
fn a_stopped_caller_settles_stopped_and_the_provider_is_told_to_cancel() {
    // (the shop is a bridge, it is told to cancel)
    for bridge in [true, false] {
        let (mut page, shop_peer) = widget_with_shop(true, bridge);
        let wire = sent_call(&page.task(execute(5, shop_peer, "add", "{}", None)));
        let effects = page.task(Input::Stop(WaiterId(5)));
        assert_eq!(settles(&effects), vec![(WaiterId(5), CallOutcome::Stopped)]);
        assert_eq!(tool_results(&effects), 1);
        let cancels: Vec<_> =
            effects.iter().filter(|e| matches!(e, Effect::Post { message: Message::CancelTool { .. }, .. })).collect();
        if bridge {
            assert_eq!(cancels, vec![&post(1, SHOP, Message::CancelTool { request_id: rid(&wire) })]);
        } else {
            // A plain WebMCP page does not speak the cancel extension.
            assert!(cancels.is_empty(), "{cancels:?}");
        }
        // Stopping again, or an answer after, settles nothing more.
        assert_eq!(page.task(Input::Stop(WaiterId(5))), vec![]);
        let late = Message::ExecuteResponse(ExecuteResponse { request_id: rid(&wire), outcome: Ok(json("1")) });
        let effects = page.task(from_window(1, SHOP, &late));
        assert!(settles(&effects).is_empty() && tool_results(&effects) == 0, "{effects:?}");
    }
}

/// A call that the page stops while it still waits for the journals (the page's first moments, while its tab is
/// claimed) never reaches a provider: when the journals open it is recorded and settled `stopped`, and nothing is
/// posted. Before, the stop found no call yet and was lost: the request left when the journals opened, and the tool ran
/// (seen in Firefox, whose tab claim takes longer: e2e `once::stop_before_start`).
#[test]
fn a_call_stopped_before_the_journals_open_is_never_sent() {
    for bridge in [true, false] {
        let (mut page, shop_peer) = widget_with_shop(false, bridge);
        let with_call_id = |waiter: u64| match execute(waiter, shop_peer, "add", "{}", None) {
            Input::Execute(mut request) => {
                request.call_id = Some("order-1".to_owned());
                Input::Execute(request)
            }
            other => other,
        };
        let before_open = page.task(with_call_id(5));
        let stopped = page.task(Input::Stop(WaiterId(5)));
        let mut effects = page.open();
        effects.extend(page.task(Input::EndOfTask));
        let posted = reaching_provider(before_open.iter().chain(&stopped).chain(&effects));
        assert!(posted.is_empty(), "bridge {bridge}: nothing may reach the provider: {posted:?}");
        assert_eq!(settles(&effects), vec![(WaiterId(5), CallOutcome::Stopped)], "bridge {bridge}");
        // The callId remembers the stop: the same callId again replays it and sends nothing.
        let again = page.task(with_call_id(6));
        assert_eq!(settles(&again), vec![(WaiterId(6), CallOutcome::Stopped)], "bridge {bridge}");
        assert!(again.iter().all(|e| !matches!(e, Effect::Post { message: Message::ExecuteRequest(_), .. })));
    }
}

/// A call stopped in the task that made it never reaches its provider, whichever way its request would have gone:
/// by window (the port offer not answered yet, as after either page reloads), on the port, or to a plain peer.
/// Before, a request by window left at once and its cancel after it: the provider took them in two tasks and
/// started the tool between them (e2e `once::stop_before_start`, in Firefox and WebKit). A call stopped in a
/// later task is still cancelled.
#[test]
fn a_call_stopped_in_the_task_that_made_it_never_reaches_its_provider() {
    // (the shop is a bridge, its port is connected)
    for (bridge, connected) in [(true, false), (true, true), (false, false)] {
        let (mut page, peer, connect) = widget_listing_shop(true, bridge);
        let mut port = None;
        if let Some((on, request_id, _)) = connect.filter(|_| connected) {
            let answer = Message::Connected { request_id, utf8_batches: false };
            page.task(Input::PortBatch { port: on, text: format!("[{}]", answer.encode()) });
            port = Some(on);
        }
        let case = format!("bridge {bridge}, port {connected}");
        let mut effects = page.handle(execute(5, peer, "add", "{}", None));
        effects.extend(page.handle(Input::Stop(WaiterId(5))));
        assert!(effects.contains(&Effect::EndOfTask), "{case}: {effects:?}");
        effects.extend(page.task(Input::EndOfTask));
        let reached = reaching_provider(&effects);
        assert!(reached.is_empty(), "{case}: nothing may reach the provider: {reached:?}");
        assert_eq!(settles(&effects), vec![(WaiterId(5), CallOutcome::Stopped)], "{case}");
        // The next call, stopped a task later, was sent, and is cancelled the way it went.
        let sent = page.task(execute(6, peer, "add", "{}", None));
        let stopped = page.task(Input::Stop(WaiterId(6)));
        // What reached the shop (by window, or on the port when there is one), as (is a request, is a cancel).
        let messages = |effects: &[Effect]| -> Vec<(bool, bool)> {
            let mut out = Vec::new();
            for effect in effects {
                match effect {
                    Effect::Post { message, .. } => out.push(message.clone()),
                    Effect::PostBatch { port: on, batch, .. } if Some(*on) == port => {
                        out.extend(session_support::batch_messages(batch));
                    }
                    _ => {}
                }
            }
            out.iter()
                .map(|m| (matches!(m, Message::ExecuteRequest(_)), matches!(m, Message::CancelTool { .. })))
                .collect()
        };
        assert_eq!(messages(&sent), vec![(true, false)], "{case}: {sent:?}");
        let cancels = if bridge { vec![(false, true)] } else { vec![] };
        assert_eq!(messages(&stopped), cancels, "{case}: {stopped:?}");
    }
}

#[test]
fn a_page_that_navigates_away_stops_its_calls_and_one_that_reloads_leaves_them_to_its_next_page() {
    // (what the page said of its departure before `pagehide`, whether its calls stop)
    let table: [(&[Departure], bool); 6] = [
        (&[], false),
        (&[Departure::Reloads], false),
        // `beforeunload` in a browser without the Navigation API: where to is unknown, taken as a reload.
        (&[Departure::Unsure], false),
        (&[Departure::Leaves], true),
        // A navigation that did not replace the document (`navigateerror`), then a reload by the browser's own
        // interface, which the page hears nothing of.
        (&[Departure::Leaves, Departure::Stays], false),
        (&[Departure::Reloads, Departure::Leaves], true),
    ];
    for (departures, stops) in table {
        let (mut page, shop_peer) = widget_with_shop(true, true);
        let wire = sent_call(&page.task(execute(5, shop_peer, "add", "{}", None)));
        for departure in departures {
            assert_eq!(page.task(Input::Navigating(*departure)), vec![], "{departures:?}");
        }
        let effects = page.task(Input::GoingAway);
        let cancel = post(1, SHOP, Message::CancelTool { request_id: rid(&wire) });
        if stops {
            assert_eq!(settles(&effects), vec![(WaiterId(5), CallOutcome::Stopped)], "{departures:?}");
            assert_eq!(tool_results(&effects), 1);
            // Recorded as stopped before the cancel leaves.
            let written = effects.iter().position(|e| *e == Effect::WriteJournals);
            let cancelled = effects.iter().position(|e| *e == cancel);
            assert!(written.is_some() && cancelled > written, "{departures:?}: {effects:?}");
        } else {
            assert!(settles(&effects).is_empty() && !effects.contains(&cancel), "{departures:?}: {effects:?}");
        }
        // The next page of the frame (over the same sessionStorage) asks the provider how a call it was left
        // stands, and has nothing to ask about a stopped one.
        let asked = post(1, SHOP, Message::CallStatusRequest { request_id: rid(&wire) });
        let next = next_page(std::mem::replace(&mut page.store, MemoryStore::new()));
        assert_eq!(next.contains(&asked), !stops, "{departures:?}: {next:?}");
    }
}

/// WebKit cancels a page's loads as soon as a navigation starts, while the page's scripts still run, so a tool that
/// awaits a `fetch` throws before `pagehide`. An error thrown while the page announced a departure is held: when the
/// page goes away the run was still running (its caller hears the page go, and the next page says `interrupted`);
/// when it stays after all (an event says so, or the hold runs out) the error is sent. A result is never held.
#[test]
fn an_error_thrown_while_the_page_is_leaving_is_held_until_it_goes_or_stays() {
    #[derive(Debug, Clone, Copy)]
    enum Then {
        GoesAway,
        StaysByEvent,
        HoldRunsOut,
    }
    let error = ToolError::new(ErrorKind::ToolError, "Load failed");
    let error_sent = post(2, WIDGET, Message::ExecuteResponse(ExecuteResponse::failure(rid("c_1"), error.clone())));
    let posts = |effects: Vec<Effect>| -> Vec<Effect> {
        effects.into_iter().filter(|e| matches!(e, Effect::Post { .. } | Effect::PostBatch { .. })).collect()
    };
    for departure in [Departure::Unsure, Departure::Reloads, Departure::Leaves] {
        for then in [Then::GoesAway, Then::StaysByEvent, Then::HoldRunsOut] {
            let case = format!("{departure:?}, then {then:?}");
            let mut page = shop();
            page.task(from_window(2, WIDGET, &execute_request("c_1", "add", "{}")));
            assert_eq!(page.task(Input::Navigating(departure)), vec![], "{case}");
            let threw = Input::ToolSettled { run: RunId(1), result: RunResult::Threw(error.clone()) };
            assert_eq!(posts(page.task(threw)), vec![], "{case}: the error is held");
            match then {
                Then::GoesAway => {
                    let effects = page.task(Input::GoingAway);
                    assert!(effects.contains(&post(2, WIDGET, Message::GoingAway)), "{case}: {effects:?}");
                    assert!(!effects.contains(&error_sent), "{case}: {effects:?}");
                    // The shop's next page answers the caller's question from the journal: interrupted.
                    let mut next = Page::new(SHOP, WIDGET);
                    next.store = std::mem::replace(&mut page.store, MemoryStore::new());
                    next.open();
                    next.register(tool("add"));
                    let status = Message::CallStatusRequest { request_id: rid("c_1") };
                    let answer = format!("{:?}", next.task(from_window(2, WIDGET, &status)));
                    assert!(answer.contains("kind: Interrupted"), "{case}: {answer}");
                }
                Then::StaysByEvent => {
                    assert_eq!(
                        posts(page.task(Input::Navigating(Departure::Stays))),
                        vec![error_sent.clone()],
                        "{case}"
                    );
                }
                Then::HoldRunsOut => {
                    assert_eq!(posts(page.advance_to(page.now + HELD_ERROR_MS - 1)), vec![], "{case}");
                    assert_eq!(posts(page.advance_to(page.now + 1)), vec![error_sent.clone()], "{case}");
                }
            }
        }
        // A result is the tool's own: it is sent at once.
        let mut page = shop();
        page.task(from_window(2, WIDGET, &execute_request("c_1", "add", "{}")));
        page.task(Input::Navigating(departure));
        let returned = Input::ToolSettled { run: RunId(1), result: RunResult::Returned("2".into()) };
        let answer = Message::ExecuteResponse(ExecuteResponse { request_id: rid("c_1"), outcome: Ok(json("2")) });
        assert_eq!(posts(page.task(returned)), vec![post(2, WIDGET, answer)], "{departure:?}");
    }
}

/// Whether the page before this one in its frame slot crashed is the session's to tell, from its store: the key it
/// writes when its journals open is removed by its last write when the page goes away, written again when the page
/// comes back from the back/forward cache, and found by the next page only when the page before did not go away.
#[test]
fn the_alive_key_tells_the_next_page_whether_the_one_before_crashed() {
    let key = "webmcp:alive:tab1:top";
    let crash_warning = |effects: &[Effect]| {
        effects.iter().any(|e| matches!(e, Effect::Warn(text) if text.contains("did not go away cleanly")))
    };
    let mut page = Page::new(SHOP, WIDGET);
    page.store = MemoryStore::durable();
    assert!(!crash_warning(&page.open()), "a first page");
    assert_eq!(page.store.get(key), Some("1"), "alive while the page runs");
    page.task(Input::GoingAway);
    assert_eq!(page.store.get(key), None, "gone cleanly");
    page.task(Input::Navigating(Departure::Stays));
    assert_eq!(page.store.get(key), Some("1"), "back from the back/forward cache");
    // A next page after a clean departure finds no key; after a crash (no `pagehide`), it does, and says so.
    page.task(Input::GoingAway);
    for (crashed, left) in [(false, true), (true, false)] {
        let mut next = Page::new(SHOP, WIDGET);
        next.store = page.store.clone();
        if !left {
            next.store.put(key, "1").unwrap();
        }
        let now = next.now;
        open_journals_with(&mut next.session, &mut next.store, ("tab1", "top"), vec![], JournalSetup { crashed }, now);
        assert_eq!(crash_warning(&next.drain()), crashed, "crashed: {crashed}");
        assert_eq!(next.store.get(key), Some("1"));
    }
    // A store that does not survive a reload keeps no key.
    let mut memory = Page::new(SHOP, WIDGET);
    memory.open();
    assert_eq!(memory.store.get(key), None);
}

/// The widget's next page in the same frame, over `store`, with the shop in window 1: what opening its journals
/// queued.
fn next_page(store: MemoryStore) -> Vec<Effect> {
    let mut page = Page::new(WIDGET, "");
    page.store = store;
    let around = vec![(WindowId(1), Locator::Frame(0))];
    let now = page.now;
    open_journals_with(&mut page.session, &mut page.store, ("tab1", "top"), around, JournalSetup::default(), now);
    page.drain()
}

#[test]
fn a_run_stops_when_its_callers_window_closes_and_runs_on_when_its_caller_reloads() {
    let mut page = shop();
    page.task(from_window(2, WIDGET, &execute_request("c_1", "add", "{}")));
    // Half a second on: the windows that were asked about.
    let probes = |page: &mut Page| -> Vec<Effect> {
        let effects = page.advance_to(page.now + LIVENESS_MS);
        effects.into_iter().filter(|e| matches!(e, Effect::ProbeWindows(_))).collect()
    };
    let probe = |page: &mut Page| assert_eq!(probes(page), vec![Effect::ProbeWindows(vec![WindowId(2)])]);
    probe(&mut page);
    assert_eq!(page.task(Input::WindowsClosed(vec![])), vec![]);
    // The caller's page reloads: it says goodbye, and its next page (the same window) asks how the call stands.
    page.task(from_window(2, WIDGET, &Message::GoingAway));
    probe(&mut page);
    assert_eq!(page.task(Input::WindowsClosed(vec![])), vec![], "a caller that reloads keeps its call running");
    let status = Message::CallStatusRequest { request_id: rid("c_1") };
    let effects = page.task(from_window(2, WIDGET, &status));
    assert!(
        matches!(effects.as_slice(), [Effect::Post { message: Message::CallStatusResponse(_), .. }]),
        "{effects:?}"
    );
    // Then its frame is removed: the window closes, and the run stops as a cancel stops it.
    probe(&mut page);
    let effects = page.task(Input::WindowsClosed(vec![WindowId(2)]));
    assert!(effects.contains(&Effect::AbortRun(RunId(1))), "{effects:?}");
    // Nothing is watched any more; a question about the call gets `cancelled`.
    assert_eq!(probes(&mut page), vec![]);
    let effects = page.task(from_window(2, WIDGET, &status));
    assert!(
        matches!(effects.as_slice(), [Effect::Post { message: Message::ExecuteResponse(ExecuteResponse { outcome: Err(e), .. }), .. }] if e.kind == ErrorKind::Cancelled),
        "{effects:?}"
    );
}

#[test]
fn a_frame_that_loads_another_document_interrupts_the_calls_waiting_on_it() {
    let (mut page, shop_peer) = widget_with_plain_shop(true);
    let effects = page.task(execute(5, shop_peer, "add", "{}", None));
    assert!(effects.contains(&Effect::WatchFrame(WindowId(1))), "{effects:?}");
    sent_call(&effects);
    // Another frame loading changes nothing.
    assert_eq!(page.task(Input::FrameLoaded(WindowId(8))), vec![]);
    let effects = page.task(Input::FrameLoaded(WindowId(1)));
    let settled = settles(&effects);
    assert_eq!(settled.len(), 1, "{effects:?}");
    assert!(matches!(&settled[0], (WaiterId(5), CallOutcome::Interrupted { .. })), "{settled:?}");
    assert_eq!(tool_results(&effects), 1);
    assert!(effects.contains(&Effect::ToolChange), "its tools are gone: {effects:?}");
    // The gone peer's tools cannot be called.
    let effects = page.task(execute(6, shop_peer, "add", "{}", None));
    assert_eq!(settles(&effects).len(), 1);
    assert!(matches!(&settles(&effects)[0].1, CallOutcome::Failed(e) if e.kind == ErrorKind::Interrupted));
}

#[test]
fn a_loopback_call_runs_the_pages_own_tool_at_the_end_of_the_task() {
    let mut page = Page::new(SHOP, "");
    page.open();
    let (registration, _) = page.register(tool("add"));
    // Without the end of the task, nothing runs yet.
    let effects = page.handle(execute(5, PeerId::SELF, "add", "{\"n\":1}", None));
    assert_eq!(effects, vec![Effect::EndOfTask]);
    let effects = page.handle(Input::EndOfTask);
    assert_eq!(effects.iter().filter(|e| matches!(e, Effect::RunTool { .. })).count(), 1, "{effects:?}");
    assert!(effects.contains(&Effect::RunTool { run: RunId(1), registration, args: json("{\"n\":1}") }));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Post { .. } | Effect::PostBatch { .. })), "{effects:?}");
    let effects = page.task(Input::ToolSettled { run: RunId(1), result: RunResult::Returned("2".into()) });
    assert_eq!(settles(&effects), vec![(WaiterId(5), CallOutcome::Completed { result: json("2") })]);
    assert_eq!(tool_results(&effects), 1);
    assert!(!effects.iter().any(|e| matches!(e, Effect::Post { .. } | Effect::PostBatch { .. })), "{effects:?}");
    // A thrown error settles a second call as failed with that error.
    page.task(execute(6, PeerId::SELF, "add", "{}", None));
    let error = ToolError::new(ErrorKind::ToolError, "out of stock");
    let effects = page.task(Input::ToolSettled { run: RunId(2), result: RunResult::Threw(error.clone()) });
    assert_eq!(settles(&effects), vec![(WaiterId(6), CallOutcome::Failed(error))]);
}

/// Native WebMCP's calls of the page's tools (the browser's agent, a native-only frame) used to run `execute`
/// directly: no argument rules, no schema check, no journal, no `toolresult`, an abort that never reached the tool.
/// Now each is an input, decided as the page's own call of its own tool.
#[test]
fn a_call_from_native_is_checked_journaled_reported_and_stoppable_like_the_pages_own() {
    use interpane_policy::session::{FromNative, UNREGISTERED_MESSAGE};
    let limits = Limits { max_message_bytes: 200, ..Limits::default() };
    let mut page = session_support::Page::with_limits(SHOP, "", 1, limits);
    page.open();
    let schema = value!({ "type": "object", "properties": { "sku": { "type": "string" } }, "required": ["sku"] });
    let mut spec = tool("add");
    spec.checker = Some(ArgSchema::compile(&schema).unwrap());
    let (registration, _) = page.register(spec);
    let native = |waiter: u64, args: Option<&str>| {
        Input::FromNative(FromNative {
            waiter: WaiterId(waiter),
            registration,
            name: "add".to_owned(),
            args: args.map(str::to_owned),
        })
    };
    let refused = |effects: &[Effect]| -> Vec<(u64, ErrorKind, String)> {
        settles(effects)
            .into_iter()
            .map(|(w, outcome)| {
                let error = outcome.error().expect("a refusal");
                (w.0, error.kind, error.message)
            })
            .collect()
    };
    // (arguments, how the call is refused): none of these runs the tool.
    let cases: [(Option<&str>, ErrorKind, &str); 5] = [
        (Some(r#"{"sku":5}"#), ErrorKind::InvalidArgs, "sku"),
        (None, ErrorKind::InvalidArgs, "sku"),
        (Some("7"), ErrorKind::InvalidArgs, "add: the arguments must be an object or an array"),
        (Some(r#"{"sku":"a","__proto__":{}}"#), ErrorKind::InvalidArgs, "add: the arguments hold a \"__proto__\" key"),
        (
            Some(&format!(r#"{{"sku":"{}"}}"#, "x".repeat(200))),
            ErrorKind::InvalidArgs,
            "add: the arguments text is 210 bytes",
        ),
    ];
    for (i, (args, kind, says)) in cases.into_iter().enumerate() {
        let effects = page.task(native(10 + i as u64, args));
        assert!(!effects.iter().any(|e| matches!(e, Effect::RunTool { .. })), "{args:?} ran: {effects:?}");
        let refusals = refused(&effects);
        assert_eq!(refusals.len(), 1, "{args:?}: {effects:?}");
        assert_eq!((refusals[0].0, refusals[0].1), (10 + i as u64, kind), "{args:?}");
        assert!(refusals[0].2.contains(says), "{args:?}: {}", refusals[0].2);
        assert_eq!(tool_results(&effects), 1, "a refused call through native is reported: {effects:?}");
    }
    // A schema refusal is a call of the page's: it is reported (`toolresult`), as a refusal by its own path is.
    assert_eq!(tool_results(&page.task(native(20, Some(r#"{"sku":5}"#)))), 1);

    // A good call runs the tool once, and its end settles native's wait and fires `toolresult`.
    let effects = page.task(native(30, Some(r#"{"sku":"a1"}"#)));
    let runs: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::RunTool { run, registration: r, args } => Some((*run, *r, args.as_str().to_owned())),
            _ => None,
        })
        .collect();
    assert_eq!(runs.len(), 1, "{effects:?}");
    assert_eq!((runs[0].1, runs[0].2.as_str()), (registration, r#"{"sku":"a1"}"#));
    let effects = page.task(Input::ToolSettled { run: runs[0].0, result: RunResult::Returned("\"ok\"".into()) });
    assert_eq!(settles(&effects), vec![(WaiterId(30), CallOutcome::Completed { result: json("\"ok\"") })]);
    assert_eq!(tool_results(&effects), 1);

    // Native's caller aborts: the run's signal aborts (the tool hears it, and `toolcancel` fires), the call stops.
    let effects = page.task(native(40, Some(r#"{"sku":"b2"}"#)));
    let run = effects.iter().find_map(|e| match e {
        Effect::RunTool { run, .. } => Some(*run),
        _ => None,
    });
    let run = run.expect("the call ran");
    let effects = page.task(Input::Stop(WaiterId(40)));
    assert!(effects.contains(&Effect::AbortRun(run)), "{effects:?}");
    assert_eq!(settles(&effects), vec![(WaiterId(40), CallOutcome::Stopped)]);

    // A registration that is gone (unregistered, even if the name is registered again) is refused.
    page.unregister("add", Some(registration));
    page.drain();
    page.register(tool("add"));
    let effects = page.task(native(50, Some(r#"{"sku":"c3"}"#)));
    assert!(!effects.iter().any(|e| matches!(e, Effect::RunTool { .. })), "{effects:?}");
    assert_eq!(refused(&effects), vec![(50, ErrorKind::UnknownTool, UNREGISTERED_MESSAGE.to_owned())]);
    assert_eq!(tool_results(&effects), 1);
}

/// A page at an opaque origin (a sandboxed frame running the bridge) never addresses anything to its own origin:
/// it has no text a post could name (`"null"` is not an origin a browser delivers to, and `'*'` is never used).
#[test]
fn a_page_at_an_opaque_origin_posts_only_to_the_tuple_origins_of_its_lists() {
    let mut page = Page::new("null", WIDGET);
    let effects = page.open();
    let around: Vec<&[TupleOrigin]> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::PostAround { origins, .. } => Some(origins.as_slice()),
            _ => None,
        })
        .collect();
    assert_eq!(around, vec![&[tuple(WIDGET)][..]], "its presence is told to the widget only: {effects:?}");
    let effects = page.task(list(1, SHOP, &[(1, Locator::Frame(0))]));
    let asked: Vec<&str> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Post { window: WindowId(1), origin, message: Message::GetToolsRequest { .. }, .. } => {
                Some(origin.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(asked, vec![SHOP], "the frame is asked at the allowed origin only: {effects:?}");
}

#[test]
fn an_opaque_origin_is_refused_with_a_warning_and_its_port_closed() {
    let mut page = shop();
    let warn =
        "refused a message from an opaque origin (a sandboxed frame): it cannot be answered without '*' from null";
    let port = page.port();
    let messages = [
        Message::Connect { request_id: rid("p_1"), utf8_batches: false },
        Message::GetToolsRequest { request_id: rid("g_1"), bridge: true },
    ];
    let effects = page.task(with_port(6, "null", &messages[0], port));
    assert_eq!(effects, vec![Effect::ClosePort(port), Effect::Warn(warn.to_owned())]);
    // The next ones are refused quietly (one warning a minute), and never answered.
    assert_eq!(page.task(from_window(6, "null", &messages[1])), vec![]);
    assert_eq!(page.task(from_window(6, "null", &execute_request("c_1", "add", "{}"))), vec![]);
}

#[test]
fn a_flood_of_malformed_messages_yields_one_warning() {
    let mut page = shop();
    let mut warnings = 0;
    for i in 0..200 {
        let input = match i % 3 {
            0 => Input::UnreadMessage { origin: window_origin(EVIL), category: ErrorCategory::InvalidJson },
            1 => Input::WindowMessage {
                window: WindowId(4),
                origin: window_origin(EVIL),
                text: r#"{"type":"WEBMCP_GET_TOOLS_REQUEST"}"#.to_owned(),
                port: None,
            },
            _ => Input::UnreadMessage { origin: window_origin(EVIL), category: ErrorCategory::TooLarge },
        };
        let effects = page.task(input);
        assert!(effects.iter().all(|e| matches!(e, Effect::Warn(_))), "{effects:?}");
        warnings += effects.len();
    }
    assert_eq!(warnings, 3, "{:?}", page.effects);
}

#[test]
fn tool_list_requests_beyond_the_rate_limit_are_refused_per_origin_with_one_warning() {
    let mut page = shop();
    // (origin, requests in one instant, answered)
    let table = [(WIDGET, 30, 20), (EVIL, 25, 20)];
    for (origin, requests, answered) in table {
        let mut replies = 0;
        for n in 0..requests {
            let ask = Message::GetToolsRequest { request_id: rid(&format!("g_{n}")), bridge: true };
            let effects = page.task(from_window(2, origin, &ask));
            replies += effects
                .iter()
                .filter(|e| matches!(e, Effect::Post { message: Message::GetToolsResponse(_), .. }))
                .count();
        }
        assert_eq!(replies, answered, "{origin}");
    }
    let warnings: Vec<_> = page.effects.iter().filter(|e| matches!(e, Effect::Warn(_))).collect();
    let expected: Vec<Effect> = [WIDGET, EVIL]
        .iter()
        .map(|o| Effect::Warn(format!("refused tool list requests beyond the rate limit from {o}")))
        .collect();
    assert_eq!(warnings, expected.iter().collect::<Vec<_>>());
    // A second later the bucket has refilled.
    page.now += 1_000;
    let ask = Message::GetToolsRequest { request_id: rid("g_later"), bridge: true };
    assert_eq!(
        page.task(from_window(2, WIDGET, &ask)),
        vec![post(2, WIDGET, tools_response("g_later", vec![descriptor("add", SHOP)]))]
    );
}

#[test]
fn a_cancel_from_an_origin_that_sees_no_tool_is_refused_and_one_from_the_caller_aborts_the_run() {
    let mut page = shop();
    page.task(from_window(2, WIDGET, &execute_request("c_1", "add", "{}")));
    let cancel = Message::CancelTool { request_id: rid("c_1") };
    // (window, origin, effects)
    let table: [(u32, &str, Vec<Effect>); 2] = [
        (4, EVIL, vec![Effect::Warn(format!("refused a cancel from an origin that sees no tool from {EVIL}"))]),
        (2, WIDGET, vec![Effect::AbortRun(RunId(1))]),
    ];
    for (window, origin, expected) in table {
        assert_eq!(page.task(from_window(window, origin, &cancel)), expected, "{origin}");
    }
}

#[test]
fn another_windows_call_cancelled_before_its_turn_never_starts_and_the_pages_own_starts_and_stops() {
    let mut page = shop();
    // Another window's request and its cancel, both read before the driver carried anything out (one batch).
    let now = page.now;
    page.session.handle(from_window(2, WIDGET, &execute_request("c_1", "add", "{}")), now);
    page.session.handle(from_window(2, WIDGET, &Message::CancelTool { request_id: rid("c_1") }), now);
    let effects = page.drain();
    assert!(!effects.iter().any(|e| matches!(e, Effect::RunTool { .. } | Effect::AbortRun(_))), "{effects:?}");
    // The page's own call, stopped in the task that made it: its tool starts all the same, then is aborted.
    page.handle(execute(5, PeerId::SELF, "add", "{}", None));
    page.handle(Input::Stop(WaiterId(5)));
    let effects = page.handle(Input::EndOfTask);
    let run = effects.iter().position(|e| matches!(e, Effect::RunTool { .. }));
    let abort = effects.iter().position(|e| matches!(e, Effect::AbortRun(_)));
    assert!(run.is_some() && abort > run, "the tool starts, then is aborted: {effects:?}");
}

#[test]
fn a_listing_keeps_the_tools_of_the_windows_asked_at_the_origins_allowed_only() {
    let mut page = Page::new(WIDGET, "");
    page.open();
    let effects = page.handle(list(1, SHOP, &[(1, Locator::Frame(0)), (2, Locator::Frame(1))]));
    let asked: Vec<(WindowId, String, String)> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Post { window, origin, message: Message::GetToolsRequest { request_id, .. }, open_port: None } => {
                Some((*window, origin.as_str().to_owned(), request_id.as_str().to_owned()))
            }
            _ => None,
        })
        .collect();
    // Each window is asked at the page's own origin and at each allowed origin, never anywhere else.
    let places: Vec<(WindowId, &str)> = asked.iter().map(|(w, o, _)| (*w, o.as_str())).collect();
    assert_eq!(places, vec![(WindowId(1), WIDGET), (WindowId(1), SHOP), (WindowId(2), WIDGET), (WindowId(2), SHOP)]);
    let id_at = |window: u32, origin: &str| {
        asked.iter().find(|(w, o, _)| *w == WindowId(window) && o == origin).map(|(_, _, id)| id.clone()).unwrap()
    };
    let plain = |id: &str, tool_name: &str, origin: &str| {
        Message::GetToolsResponse(GetToolsResponse {
            request_id: rid(id),
            tools: vec![descriptor(tool_name, origin)],
            bridge: false,
        })
    };
    // (window, origin, response): refused ones first, then the real answers.
    let refused = [
        // Window 2's request id, answered by window 1.
        (1, SHOP, plain(&id_at(2, SHOP), "stolen", SHOP)),
        // Window 1's request at the shop's origin, answered from another origin.
        (1, EVIL, plain(&id_at(1, SHOP), "evil", EVIL)),
        // An id nobody asked.
        (1, SHOP, plain("g_unknown", "stray", SHOP)),
    ];
    for (window, origin, response) in refused {
        let effects = page.task(from_window(window, origin, &response));
        assert!(effects.iter().all(|e| matches!(e, Effect::Warn(_))), "{effects:?}");
    }
    page.task(from_window(1, SHOP, &plain(&id_at(1, SHOP), "add", SHOP)));
    let effects = page.task(from_window(2, SHOP, &plain(&id_at(2, SHOP), "pay", SHOP)));
    let [Effect::Listed { waiter: WaiterId(1), tools }] = effects.as_slice() else {
        panic!("the listing ends when both windows answered: {effects:?}")
    };
    let names: Vec<(&str, WindowId)> = tools.iter().map(|t| (t.descriptor.name.as_str(), t.window)).collect();
    assert_eq!(names, vec![("add", WindowId(1)), ("pay", WindowId(2))]);
    assert!(tools.iter().all(|t| t.origin == window_origin(SHOP)));
}

/// Native WebMCP as a third kind of peer: a tool listed on native's path is called through the session (journaled,
/// `callId` honoured, `toolresult` fired), carried out by the driver with native's `executeTool`.
#[test]
fn a_call_on_natives_path_is_journaled_like_any_other() {
    let mut page = Page::new(WIDGET, "");
    page.open();
    let native = page.native_peer(WindowId(1), SHOP);
    assert_ne!(native, PeerId::SELF);
    assert_eq!(page.native_peer(WindowId(1), SHOP), native, "one native peer per window and origin");
    let call = |waiter: u64| {
        let mut input = execute(waiter, native, "add", "{\"x\":1}", None);
        if let Input::Execute(request) = &mut input {
            request.call_id = Some("order-7".to_owned());
        }
        input
    };
    let effects = page.task(call(5));
    let wire: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::CallNative { peer, wire_id, tool, args } if *peer == native && tool.as_str() == "add" => {
                assert_eq!(args.as_str(), "{\"x\":1}");
                Some(wire_id.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(wire.len(), 1, "one call through native: {effects:?}");
    assert!(!effects.iter().any(|e| matches!(e, Effect::Post { .. } | Effect::PostBatch { .. })), "{effects:?}");
    // The same callId again while it runs joins it: nothing more reaches native.
    let effects = page.task(call(6));
    assert!(!effects.iter().any(|e| matches!(e, Effect::CallNative { .. })), "{effects:?}");
    let result = json("\"{\\\"y\\\":2}\"");
    let effects = page.task(Input::NativeSettled { wire_id: wire[0].clone(), result: Ok(result.clone()) });
    let completed = CallOutcome::Completed { result: result.clone() };
    assert_eq!(settles(&effects), vec![(WaiterId(5), completed.clone()), (WaiterId(6), completed.clone())]);
    assert_eq!(tool_results(&effects), 1);
    // Settled: the same callId replays the outcome without running anything.
    let effects = page.task(call(7));
    assert_eq!(settles(&effects), vec![(WaiterId(7), completed)]);
    assert!(!effects.iter().any(|e| matches!(e, Effect::CallNative { .. })), "{effects:?}");
    // A stopped call on native's path aborts native's call.
    let effects = page.task(execute(8, native, "add", "{}", None));
    let Some(Effect::CallNative { wire_id, .. }) = effects.iter().find(|e| matches!(e, Effect::CallNative { .. }))
    else {
        panic!("a second call through native: {effects:?}");
    };
    let wire_id = wire_id.clone();
    let effects = page.task(Input::Stop(WaiterId(8)));
    assert_eq!(settles(&effects), vec![(WaiterId(8), CallOutcome::Stopped)]);
    assert!(effects.contains(&Effect::AbortNative(wire_id.clone())), "{effects:?}");
    // Native's late end for it settles nothing more.
    let effects = page.task(Input::NativeSettled { wire_id, result: Ok(json("1")) });
    assert!(settles(&effects).is_empty() && tool_results(&effects) == 0, "{effects:?}");
}

#[test]
fn a_calls_arguments_are_held_to_the_rules_and_the_pages_limits_in_the_session() {
    // Whoever makes the call (the JavaScript API, the Rust API), the session decides whether its arguments may be
    // sent: an object (an array only for a tool on native's path), within the page's limits, no `__proto__`.
    let limits = Limits { max_message_bytes: 200, ..Limits::default() };
    let mut page = Page::with_limits(WIDGET, "", 1, limits);
    page.open();
    let native = page.native_peer(WindowId(2), SHOP);
    let call = |waiter: u64, peer: PeerId, args: Option<&str>| {
        Input::Execute(CallRequest {
            waiter: WaiterId(waiter),
            target: CallTarget::Listed(peer),
            tool: name("add"),
            args: args.map(str::to_owned),
            call_id: None,
            timeout_ms: None,
        })
    };
    let big = format!(r#"{{"note":"{}"}}"#, "x".repeat(300));
    let refused: [(Option<&str>, CallArgsError); 5] = [
        (Some("true"), CallArgsError::NotAnObject),
        (Some("\"text\""), CallArgsError::NotAnObject),
        (Some(r#"{"a":{"__proto__":{}}}"#), CallArgsError::ProtoKey),
        (Some("{"), accept_call_args("{", &Limits::default()).unwrap_err()),
        (Some(&big), accept_call_args(&big, &limits_of(&page)).unwrap_err()),
    ];
    for (i, (args, error)) in refused.into_iter().enumerate() {
        let waiter = 10 + i as u64;
        let effects = page.task(call(waiter, native, args));
        let error = CallRefusal::Arguments(error);
        assert_eq!(effects, vec![Effect::RefuseCall { waiter: WaiterId(waiter), error }], "{args:?}");
    }
    // Left out means {}; an array is an object to WebMCP, whichever way it is given.
    let taken = [(20, None), (21, Some("[1,2]")), (22, Some("[3]"))];
    for (waiter, args) in taken {
        let effects = page.task(call(waiter, native, args));
        let sent: Vec<_> = effects
            .iter()
            .filter_map(|e| match e {
                Effect::CallNative { args, .. } => Some(args.as_str().to_owned()),
                _ => None,
            })
            .collect();
        assert_eq!(sent, vec![args.unwrap_or("{}").to_owned()], "{effects:?}");
    }
}

#[test]
fn a_copy_of_a_tool_object_calls_the_pages_own_tool_only() {
    // A copy of a tool object (not the one getTools returned) is the page's own tool when its window is the
    // page's, its origin the page's and a tool of its name is registered here, as native takes a copy of its own
    // tool object; any other copy is refused before anything runs.
    let mut page = shop();
    let copy = |waiter: u64, tool: &str, origin: &str, own_window: bool| {
        Input::Execute(CallRequest {
            waiter: WaiterId(waiter),
            target: CallTarget::Copy { origin: interpane_policy::WindowOrigin::from_browser(origin), own_window },
            tool: name(tool),
            args: None,
            call_id: None,
            timeout_ms: None,
        })
    };
    let not_listed = |waiter: u64, tool: &str, origin: &str| Effect::RefuseCall {
        waiter: WaiterId(waiter),
        error: CallRefusal::NotListed { tool: tool.to_owned(), origin: origin.to_owned() },
    };
    assert_eq!(page.task(copy(1, "add", SHOP, false)), vec![not_listed(1, "add", SHOP)], "another window");
    assert_eq!(page.task(copy(2, "add", WIDGET, true)), vec![not_listed(2, "add", WIDGET)], "another origin");
    let no_such_tool =
        Effect::RefuseCall { waiter: WaiterId(3), error: CallRefusal::NoSuchTool { tool: "pay".into() } };
    assert_eq!(page.task(copy(3, "pay", SHOP, true)), vec![no_such_tool], "no such tool here");
    let effects = page.task(copy(4, "add", SHOP, true));
    assert!(effects.iter().any(|e| matches!(e, Effect::RunTool { .. })), "the page's own tool runs: {effects:?}");
}

/// The page's message limits (as its config holds them).
fn limits_of(page: &Page) -> Limits {
    page.session.config().limits.clone()
}

/// Carries out `page`'s queued effects one at a time, as the driver does (the journals written where the session
/// asks); for each call that leaves (a request to the shop's window or a call on native's path), its wire id and
/// whether the page's storage held it when it left.
fn calls_leaving(page: &mut Page) -> Vec<(String, bool)> {
    let mut leaving = Vec::new();
    while let Some(effect) = page.session.poll_effect() {
        let wire = match &effect {
            Effect::WriteJournals => {
                page.session.write_journals(&mut page.store, page.now);
                None
            }
            Effect::Post { message: Message::ExecuteRequest(request), .. } => Some(request.request_id.to_string()),
            Effect::CallNative { wire_id, .. } => Some(wire_id.to_string()),
            _ => None,
        };
        if let Some(wire) = wire {
            let stored = page.store.entries("webmcp:log:c:").iter().any(|(_, segment)| segment.contains(&wire));
            leaving.push((wire, stored));
        }
        if effect == Effect::EndOfTask {
            page.session.handle(Input::EndOfTask, page.now);
        }
    }
    leaving
}

#[test]
fn a_call_that_cannot_be_asked_about_later_is_in_storage_before_it_leaves() {
    // A plain peer (no `callId` status) and native's path cannot say after a reload whether a call ran: the
    // record that it was sent must be durable before the request leaves, or a reload could send it twice. The
    // session writes no storage itself: it queues Effect::WriteJournals ahead of the request.
    let (mut page, shop_peer) = widget_with_plain_shop(false);
    page.store = MemoryStore::durable();
    page.open();
    page.session.handle(execute(5, shop_peer, "add", "{}", None), page.now);
    let sent = calls_leaving(&mut page);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(sent[0].1, "the request to a plain peer left before its record reached storage");

    let native = page.native_peer(WindowId(2), SHOP);
    page.session.handle(execute(6, native, "add", "{}", None), page.now);
    let sent = calls_leaving(&mut page);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(sent[0].1, "the call on native's path left before its record reached storage");
}

/// The statuses announced to the other pages of the origin among `effects`, in order.
fn announced(effects: &[Effect]) -> Vec<ObservedStatus> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::PostCalls(text) => match calls_channel::decode(text) {
                ChannelMessage::Statuses(calls) => Some(calls.iter().map(|c| c.status).collect::<Vec<_>>()),
                _ => None,
            },
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn calls_are_announced_only_once_another_page_of_the_origin_listens() {
    let (mut page, shop_peer) = widget_with_plain_shop(true);
    // No other page listens: the call goes out and nothing is announced.
    let effects = page.task(execute(5, shop_peer, "add", "{}", None));
    let wire = sent_call(&effects);
    assert_eq!(announced(&effects), vec![], "{effects:?}");
    // Another page says it listens: the call in flight is announced at once, as running...
    let answer = || Input::CallsChannel(calls_channel::ANSWER.to_owned());
    assert_eq!(announced(&page.task(answer())), vec![ObservedStatus::Running]);
    // ...and how it ends.
    let done = Message::ExecuteResponse(ExecuteResponse { request_id: rid(&wire), outcome: Ok(json("1")) });
    let effects = page.task(from_window(1, SHOP, &done));
    assert_eq!(announced(&effects), vec![ObservedStatus::Settled(OutcomeStatus::Completed)], "{effects:?}");
    // A second listener changes nothing, and a new call is announced as it is sent.
    assert_eq!(announced(&page.task(answer())), vec![]);
    assert_eq!(announced(&page.task(execute(6, shop_peer, "add", "{}", None))), vec![ObservedStatus::Running]);
}

/// The calls channel's handshake is the session's (it was the driver's, in JavaScript): a page says hello once its
/// journals are open, answers each hello it hears with one answer, reads other pages' statuses, and ignores the rest.
#[test]
fn the_calls_channel_handshake_is_decided_in_the_session() {
    let hello = || Input::CallsChannel(calls_channel::HELLO.to_owned());
    let posted = |effects: &[Effect]| -> Vec<String> {
        effects.iter().filter_map(|e| if let Effect::PostCalls(t) = e { Some(t.clone()) } else { None }).collect()
    };
    let mut page = Page::new(WIDGET, "");
    let opened = page.open();
    assert_eq!(posted(&opened), vec![calls_channel::HELLO.to_owned()], "{opened:?}");
    assert_eq!(opened.last(), Some(&Effect::Ready));
    // Each hello heard gets one answer.
    assert_eq!(posted(&page.task(hello())), vec![calls_channel::ANSWER.to_owned()]);
    assert_eq!(posted(&page.task(hello())), vec![calls_channel::ANSWER.to_owned()]);
    // An answer, and anything that is not the channel's, get nothing.
    assert_eq!(page.task(Input::CallsChannel(calls_channel::ANSWER.to_owned())), vec![]);
    for other in [r#"{"kind":"chat","text":"hi"}"#, "[]", "not json", r#"{"kind":"webmcp-call-status","calls":5}"#] {
        assert_eq!(page.task(Input::CallsChannel(other.to_owned())), vec![], "{other}");
    }
    // Another page's statuses become `toolstatus` events, malformed entries skipped.
    let statuses = r#"{"kind":"webmcp-call-status","calls":[{"tab":"t2","callId":"o-1","name":"pay",
        "origin":"https://pay.example","status":"completed","durationMs":9},{"tab":"t2"}]}"#;
    let effects = page.task(Input::CallsChannel(statuses.to_owned()));
    let expected = ObservedCall {
        tab_label: "t2".into(),
        call_id: "o-1".into(),
        name: "pay".into(),
        origin: "https://pay.example".into(),
        status: ObservedStatus::Settled(OutcomeStatus::Completed),
        duration_ms: Some(9),
    };
    assert_eq!(effects, vec![Effect::ToolStatus(expected)]);
}

/// Which window messages are the bridge's to read (the driver hides those from the page's own listeners): a request
/// or notice of the protocol, a listing it asked for; not a response to a request the page's script sent by hand.
#[test]
fn the_session_says_which_window_messages_were_its_own() {
    let mut widget = Page::new(WIDGET, "");
    widget.open();
    let heard = |page: &mut Page, message: &Message| {
        let answer = page.session.handle(from_window(1, SHOP, message), page.now);
        page.drain();
        answer
    };
    // A response nobody in the session asked for: the page's own script asked, by hand.
    let by_hand = tools_response("asked_by_hand", vec![descriptor("add", SHOP)]);
    assert_eq!(heard(&mut widget, &by_hand), Answer::Heard { ours: false });
    assert_eq!(heard(&mut widget, &failure("c_by_hand", ErrorKind::ToolError, "x")), Answer::Heard { ours: false });
    // A request, a notice: the bridge's.
    assert_eq!(heard(&mut widget, &execute_request("c_1", "add", "{}")), Answer::Heard { ours: true });
    assert_eq!(heard(&mut widget, &Message::ToolsChanged), Answer::Heard { ours: true });
    // A listing the session asked for.
    let effects = widget.handle(list(1, SHOP, &[(1, Locator::Frame(0))]));
    let asked = effects.iter().find_map(|e| match e {
        Effect::Post { message: Message::GetToolsRequest { request_id, .. }, .. } => Some(request_id.clone()),
        _ => None,
    });
    let asked = asked.expect("the shop's window is asked");
    let response = Message::GetToolsResponse(GetToolsResponse {
        request_id: asked,
        tools: vec![descriptor("add", SHOP)],
        bridge: false,
    });
    assert_eq!(heard(&mut widget, &response), Answer::Heard { ours: true });
    // Text that is not ours at all.
    let not_ours = Input::WindowMessage {
        window: WindowId(1),
        origin: interpane_policy::WindowOrigin::from_browser(SHOP),
        text: r#"{"type":"something_else"}"#.into(),
        port: None,
    };
    assert_eq!(widget.session.handle(not_ours, widget.now), Answer::Heard { ours: false });
}
