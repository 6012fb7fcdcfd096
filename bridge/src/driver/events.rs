//! Browser events, turned into session inputs: window messages (checked for size before they are copied into
//! wasm memory), port batches, the page's lifecycle, and tools that finished.

use gloo_events::{EventListener, EventListenerOptions};
use interpane_policy::envelope::ThrownError;
use interpane_policy::session::{Departure, Input, PortId, RunId, RunResult};
use interpane_policy::{ErrorCategory, WindowOrigin};
use wasm_bindgen::{JsCast, JsValue};

use std::rc::Weak;

use crate::driver::handles::PortHandle;
use crate::driver::{Driver, upgrade};
use crate::{console, js};

/// The window and document listeners of the page's bridge (`driver`).
pub(super) fn listen(window: &web_sys::Window, driver: &Weak<Driver>) -> Vec<EventListener> {
    let (on_message, on_hide, on_show) = (driver.clone(), driver.clone(), driver.clone());
    let mut listeners = vec![
        // In the capture phase, so that it runs before the page's own listeners on the window, which never see the
        // bridge's messages (below): a page's `{ once: true }` listener would otherwise be spent on one of them.
        EventListener::new_with_options(
            window,
            "message",
            EventListenerOptions::run_in_capture_phase(),
            move |event| {
                if let Some(event) = event.dyn_ref::<web_sys::MessageEvent>() {
                    upgrade(&on_message, |driver| on_window_message(driver, event));
                }
            },
        ),
        EventListener::new(window, "pagehide", move |event| {
            upgrade(&on_hide, |driver| {
                driver.input(Input::GoingAway);
            });
            // Into the back/forward cache: its BroadcastChannels close (Chromium evicts a cached page that a message
            // on one reaches), and it lets go of the tab's lock (WebKit takes a cached page's locks; a navigation
            // let go of it already where the Navigation API is).
            if persisted(event) {
                js::into_cache();
                js::let_go_of_tab_lock();
            }
        }),
        EventListener::new(window, "pageshow", move |event| {
            // Back from the back/forward cache: the page is alive again. Its channels open, it says hello on the
            // calls channel again (pages of the origin that started meanwhile did not hear it), and it takes the
            // tab's lock again.
            if persisted(event) {
                js::back_from_cache();
                js::post_calls(interpane_policy::calls_channel::HELLO);
                upgrade(&on_show, |driver| navigating(driver, Departure::Stays));
            }
        }),
    ];
    listeners.extend(listen_to_navigation(window, driver));
    if let Some(document) = window.document() {
        let (on_visibility, on_freeze) = (driver.clone(), driver.clone());
        listeners.push(EventListener::new(&document, "visibilitychange", move |_| {
            let hidden = web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden());
            if hidden {
                upgrade(&on_visibility, |driver| driver.input(Input::Hidden));
            }
        }));
        listeners.push(EventListener::new(&document, "freeze", move |_| {
            upgrade(&on_freeze, |driver| driver.input(Input::Hidden))
        }));
    }
    listeners
}

/// The Navigation API's events (where the browser has it, else `beforeunload`): whether the page's document is
/// about to be replaced, by a reload or by another document, for what going away means for its calls (the session
/// decides). A same-document navigation or a download replaces nothing; `navigatesuccess` and `navigateerror` say
/// that a navigation ended without replacing the document. A navigation that a page of another origin starts fires
/// none of them here (nor, maybe, one the browser's own interface starts), and the session takes the page's leaving
/// as a reload then.
fn listen_to_navigation(window: &web_sys::Window, driver: &Weak<Driver>) -> Vec<EventListener> {
    let navigation = js_sys::Reflect::get(window, &JsValue::from_str("navigation")).unwrap_or(JsValue::UNDEFINED);
    let Ok(navigation) = navigation.dyn_into::<web_sys::EventTarget>() else {
        // Without it (WebKit), `beforeunload` is the only sign that a navigation may start: where to is unknown,
        // and the session only holds the errors that tools throw until the page goes or stays. The listener never
        // asks the user anything.
        let on_before_unload = driver.clone();
        return vec![EventListener::new(window, "beforeunload", move |_| {
            upgrade(&on_before_unload, |driver| driver.input(Input::Navigating(Departure::Unsure)));
        })];
    };
    let on_navigate = driver.clone();
    let mut listeners = vec![EventListener::new(&navigation, "navigate", move |event| {
        let read = |value: &JsValue, name: &str| js_sys::Reflect::get(value, &JsValue::from_str(name)).ok();
        let event: &JsValue = event.as_ref();
        let same_document = read(event, "destination").and_then(|d| read(&d, "sameDocument")).and_then(|v| v.as_bool());
        let download = read(event, "downloadRequest").is_some_and(|v| !v.is_null() && !v.is_undefined());
        if same_document != Some(false) || download {
            return;
        }
        let reload = read(event, "navigationType").and_then(|v| v.as_string()).is_some_and(|t| t == "reload");
        let departure = if reload { Departure::Reloads } else { Departure::Leaves };
        upgrade(&on_navigate, |driver| navigating(driver, departure));
    })];
    for name in ["navigatesuccess", "navigateerror"] {
        let on_end = driver.clone();
        listeners.push(EventListener::new(&navigation, name, move |_| {
            upgrade(&on_end, |driver| navigating(driver, Departure::Stays));
        }));
    }
    listeners
}

/// Whether a `pagehide` or `pageshow` event is the page's going into, or coming back from, the back/forward cache.
fn persisted(event: &web_sys::Event) -> bool {
    event.dyn_ref::<web_sys::PageTransitionEvent>().is_some_and(|e| e.persisted())
}

/// The page's document is about to be replaced, or stays after all: the session hears it, and the tab's lock is let
/// go of or asked for again, since Firefox keeps a page that holds a Web Lock out of its back/forward cache. A
/// departure without the Navigation API (`beforeunload`, [`Departure::Unsure`]) keeps the lock: no later event
/// would tell that the page stayed, and WebKit, the engine without that API, caches a page that holds one.
fn navigating(driver: &Driver, departure: Departure) {
    driver.input(Input::Navigating(departure));
    match departure {
        Departure::Stays => js::take_tab_lock_again(),
        Departure::Leaves | Departure::Reloads => js::let_go_of_tab_lock(),
        Departure::Unsure => {}
    }
}

/// A `message` event on the window: the origin is read first (Chromium decodes large cross-origin messages faster
/// that way), the source must be a window, the data must look like ours, and it must fit the size limit
/// (measured without serializing it) before it is serialized; the JSON text must fit again before it is copied
/// into wasm memory. A message over the limits costs the page a walk of at most the limit, never a copy.
fn on_window_message(driver: &Driver, event: &web_sys::MessageEvent) {
    let origin = WindowOrigin::from_browser(&event.origin());
    let Some(source) = event.source() else { return };
    let source: JsValue = source.into();
    if !js::is_window(&source) || !looks_like_ours(&event.data()) {
        return;
    }
    let max = driver.options.limits.max_message_bytes;
    let data = event.data();
    let text = if js::exceeds_json_size(&data, max) {
        Err(ErrorCategory::TooLarge)
    } else {
        js_sys::JSON::stringify(&data).map_err(|_| ErrorCategory::InvalidJson)
    };
    // A UTF-16 length over the byte limit is over it in UTF-8 too: refused before the copy.
    let text = text.and_then(|text| if text.length() as usize > max { Err(ErrorCategory::TooLarge) } else { Ok(text) });
    let text = match text {
        Ok(text) => crate::text_in::js_string(&text),
        Err(category) => {
            event.stop_immediate_propagation();
            return driver.input(Input::UnreadMessage { origin, category });
        }
    };
    let window = driver.window_id(&source);
    let port = event.ports().get(0).dyn_into::<web_sys::MessagePort>().ok().and_then(|port| {
        let id = driver.new_port()?;
        // A new id: nothing is replaced (and dropped) under the borrow.
        driver.handles.borrow_mut().ports.insert(id, PortHandle { port, _listener: None });
        Some(id)
    });
    // The session says whether it was the bridge's: the page's own listeners never see those (a response to a
    // request the page's script made by hand is not the bridge's, and reaches them).
    if driver.hear(Input::WindowMessage { window, origin, text, port }) {
        event.stop_immediate_propagation();
    }
}

/// A cheap first look: an object whose `type` is a string starting with `WEBMCP_`. The session decides the rest.
fn looks_like_ours(data: &JsValue) -> bool {
    data.is_object()
        && js_sys::Reflect::get(data, &JsValue::from_str("type"))
            .ok()
            .and_then(|t| t.as_string())
            .is_some_and(|t| t.starts_with("WEBMCP_"))
}

/// Listens on private port `id`: each batch (a string, or its UTF-8 bytes from a bridge that was told this page
/// reads them) goes to the session, refused by its length before it is copied when it is over the limit, and
/// refused when it is neither. (Browsers fire no event when the other end of a port dies; the session finds a dead
/// port by its silence.)
pub(super) fn listen_to_port(driver: &Weak<Driver>, port: &web_sys::MessagePort, id: PortId) -> EventListener {
    let driver = driver.clone();
    let listener = EventListener::new(port, "message", move |event| {
        let Some(event) = event.dyn_ref::<web_sys::MessageEvent>() else { return };
        let Some(driver) = driver.upgrade() else { return };
        let max = driver.options.limits.max_batch_bytes;
        let data = event.data();
        let input = if let Some(bytes) = data.dyn_ref::<js_sys::Uint8Array>() {
            if bytes.length() as usize > max {
                Input::OversizedBatch(id)
            } else {
                match String::from_utf8(bytes.to_vec()) {
                    Ok(text) => Input::PortBatch { port: id, text },
                    Err(_) => Input::UnreadableBatch(id),
                }
            }
        } else if let Some(text) = data.dyn_ref::<js_sys::JsString>() {
            // A UTF-16 length over the byte limit is over it in UTF-8 too.
            if text.length() as usize > max {
                Input::OversizedBatch(id)
            } else {
                Input::PortBatch { port: id, text: crate::text_in::js_string(text) }
            }
        } else {
            Input::UnreadableBatch(id)
        };
        driver.input(input);
    });
    port.start();
    listener
}

/// A JavaScript tool settled (js/tools.js `runTool` calls this with the run's number).
pub(super) fn on_tool_settled(driver: &Driver, run: u32, ok: bool, value: &JsValue) {
    let run = RunId(run);
    driver.handles.borrow_mut().runs.remove(&run);
    let result = if ok {
        match js::safe_json(value) {
            Ok(text) => RunResult::Returned(crate::text_in::js_string(&text)),
            Err(error) => RunResult::Unsendable(console::describe(&error)),
        }
    } else {
        RunResult::Threw(thrown_to_error(driver, value))
    };
    driver.input(Input::ToolSettled { run, result });
}

/// What native's `executeTool` rejected with: an error that keeps native's name and message, of the kind the
/// policy gives its name (`native_rejection_kind`).
pub(super) fn native_error(driver: &Driver, error: &JsValue) -> interpane_policy::ToolError {
    let mut tool_error = thrown_to_error(driver, error);
    tool_error.kind = interpane_policy::native_rejection_kind(tool_error.name);
    tool_error
}

/// What a tool threw, as an error that keeps its message, name, status and retryAfter within the limits.
fn thrown_to_error(driver: &Driver, thrown: &JsValue) -> interpane_policy::ToolError {
    let described = js::describe_thrown(thrown);
    let field = |name: &str| -> serde_json::Value {
        js_sys::Reflect::get(&described, &JsValue::from_str(name))
            .ok()
            .and_then(|v| js_sys::JSON::stringify(&v).ok())
            .and_then(|t| t.as_string())
            .and_then(|t| interpane_policy::envelope::parse_json(&t).ok())
            .unwrap_or(serde_json::Value::Null)
    };
    let (message, name, status, retry_after) = (field("message"), field("name"), field("status"), field("retryAfter"));
    ThrownError { message: &message, name: &name, status: &status, retry_after: &retry_after }
        .to_tool_error(&driver.options.limits)
}
