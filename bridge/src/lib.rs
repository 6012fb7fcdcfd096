//! Expose a page's WebMCP tools to other windows (iframes, openers, embedding pages) and call the tools that
//! other windows expose, over `postMessage`, safely.
//!
//! A shop page that lets a chat widget in a cross-origin iframe add to its cart, and pays through a payment
//! iframe:
//!
//! ```no_run
//! use serde_json::{Value, json};
//! use interpane::{Bridge, BridgeOptions, BrowserUrl, CallOptions, OriginList, ParseOptions, ToolDefinition, ToolError};
//!
//! # async fn shop() -> Result<(), Box<dyn std::error::Error>> {
//! // Only the widget's origin (and the shop's own) may see the shop's tools. Lists are parsed with the browser's
//! // URL parser (or with `OriginList::parse`, this crate's default feature `url`, with the url crate).
//! let widget = OriginList::parse_using("https://widget.example", ParseOptions::default(), &BrowserUrl)?;
//! let bridge = Bridge::install(BridgeOptions::exposing_to(widget))?;
//!
//! let add_to_cart = ToolDefinition::new("add_to_cart", "Add a product to the cart.", |args: Value, _signal| async move {
//!     let sku = args["sku"].as_str().unwrap_or_default().to_owned();
//!     Ok::<Value, ToolError>(json!({ "content": [{ "type": "text", "text": format!("Added {sku}") }] }))
//! })
//! .input_schema(json!({
//!     "type": "object",
//!     "properties": { "sku": { "type": "string" } },
//!     "required": ["sku"]
//! }));
//! // The tool stays registered while `_registration` lives.
//! let _registration = bridge.register_tool(add_to_cart)?;
//!
//! // Call the payment iframe's tool. Dropping the future stops the call; an error keeps the provider's
//! // status and retryAfter.
//! let pay = OriginList::parse_using("https://pay.example", ParseOptions::default(), &BrowserUrl)?;
//! let tools = bridge.get_tools(pay).await;
//! if let Some(pay) = tools.iter().find(|t| t.name() == "pay_invoice") {
//!     let receipt = bridge
//!         .execute_tool(pay, json!({ "amount": 5 }), CallOptions::default().call_id("order-1042"))
//!         .await?;
//!     println!("paid: {receipt}");
//! }
//! # Ok(())
//! # }
//! ```
//!
//! From JavaScript (the npm package `interpane`, built from this crate) the same bridge is
//! `document.modelContext`:
//!
//! ```js
//! import init, { install } from "interpane";
//! await init();
//! install({ exposeToolsTo: "https://widget.example" });
//! document.modelContext.registerTool({ name: "add_to_cart", description: "Add a product to the cart.",
//!   inputSchema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
//!   async execute({ sku }) { return { content: [{ type: "text", text: `Added ${sku}` }] }; } });
//! ```
//!
//! Every protocol decision is made by `interpane-policy`'s `session::Session`, a deterministic state machine (who may
//! list, call, cancel or connect, where each answer goes, when to retry; the once-only journals are inside it).
//! This crate is its driver: listeners turn browser events into the session's inputs, and its effects become
//! `postMessage` calls, port batches, tool runs, promise settlements and events (module `driver`). The data flow of
//! one call and where each part lives are in `docs/architecture.md`; the wire protocol is in `docs/protocol.md`,
//! the once-only guarantees in `docs/once-only.md`.
//!
//! Cargo features: `js-api` (default) exports the JavaScript API (`install()` and the `document.modelContext`
//! object); a Rust app that uses only [`Bridge`] can leave it out with `default-features = false`.
#![deny(missing_docs)]
// Without the JavaScript API, the parts only it reaches (the promise-based waiters, reading `install()` options)
// are left unused rather than cut out file by file.
#![cfg_attr(not(feature = "js-api"), allow(dead_code))]

mod browser_url;
mod console;
mod driver;
mod error;
mod forms;
mod install;
mod js;
#[cfg(feature = "js-api")]
mod js_api;
mod listeners;
mod native;
mod observe;
mod oneshot;
mod options;
mod patterns;
mod random;
mod rust_api;
mod store;
mod tab;
mod text_in;
mod tool_types;
mod user;

pub use browser_url::BrowserUrl;
pub use error::{BridgeError, CallError};
pub use interpane_policy::journal::OutcomeStatus as CallStatus;
pub use interpane_policy::origin::UrlParser;
pub use interpane_policy::session::{ObservedCall, ObservedStatus};
pub use interpane_policy::{ErrorKind, OriginList, OriginListError, ParseOptions, ToolError};
#[cfg(feature = "js-api")]
pub use js_api::{BridgeHandle, install};
pub use listeners::ListenerGuard;
pub use options::BridgeOptions;
pub use rust_api::{Bridge, ToolCall, ToolDefinition, ToolRegistration};
pub use tool_types::{CallOptions, RemoteTool, ToolFuture, ToolResult};

/// A small listener guard for `message` events, used by the tests of the gloo-style guard behaviour.
pub mod listener {
    use gloo_events::EventListener;
    use wasm_bindgen::JsCast;

    /// Listens for `message` events on a window until dropped.
    #[must_use = "the listener stops when this guard is dropped"]
    pub struct MessageListener {
        _guard: EventListener,
    }

    impl MessageListener {
        /// Calls `on_message` with the data of every `message` event the window receives.
        pub fn new(window: &web_sys::Window, mut on_message: impl FnMut(wasm_bindgen::JsValue) + 'static) -> Self {
            let guard = EventListener::new(window, "message", move |event| {
                if let Some(event) = event.dyn_ref::<web_sys::MessageEvent>() {
                    on_message(event.data());
                }
            });
            Self { _guard: guard }
        }
    }
}

/// The tape of this page's session so far, as JSON (`interpane_policy::session::tape`), or `undefined` before
/// `install()`: a build with the feature `record` only, for the replay test (`scripts/build-pkg.sh --record`).
#[cfg(feature = "record")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = recordedTape)]
pub fn recorded_tape() -> Option<String> {
    driver::Driver::installed().map(|driver| driver.tape_json())
}

/// The wasm's allocator with the feature `global-allocator` (the npm package's build): talc, smaller than the
/// standard library's dlmalloc. Not for threads (a wasm built with atomics keeps dlmalloc).
#[cfg(all(feature = "global-allocator", target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
