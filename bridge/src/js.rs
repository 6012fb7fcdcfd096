//! The functions of the JavaScript helpers in `js/`: the few pieces that must be JavaScript, one module per concern
//! (the `document.modelContext` object and its events, call announcements, values, windows, the tab claim, tools).

use wasm_bindgen::prelude::*;

/// `js/context.js`: the `document.modelContext` object and the events it fires.
#[wasm_bindgen(module = "/js/context.js")]
extern "C" {
    /// The `document.modelContext`-shaped object, calling back into `handle`.
    #[wasm_bindgen(js_name = makeModelContext)]
    pub fn make_model_context(handle: JsValue) -> JsValue;

    /// Resolves the context's `ready` promise.
    #[wasm_bindgen(js_name = markReady)]
    pub fn mark_ready(context: &JsValue);

    /// Where the browser has no WebMCP: `document.modelContext` as a getter of `Document.prototype` (other
    /// documents of the window get an object that rejects), and the spec's interfaces as globals.
    #[wasm_bindgen(js_name = defineOnDocument)]
    pub fn define_on_document(context: &JsValue);

    #[wasm_bindgen(js_name = fireToolChange)]
    pub fn fire_tool_change(target: &JsValue);

    #[wasm_bindgen(js_name = fireToolResult)]
    pub fn fire_tool_result(target: &JsValue, detail: &JsValue);

    #[wasm_bindgen(js_name = fireToolStatus)]
    pub fn fire_tool_status(target: &JsValue, detail: &JsValue);

}

/// `js/announce.js`: the channel on which the pages of this origin announce their calls.
#[wasm_bindgen(module = "/js/announce.js")]
extern "C" {
    /// Opens the BroadcastChannel `channel` and calls `on_message` with the data of every message on it.
    #[wasm_bindgen(js_name = watchCalls)]
    pub fn watch_calls(channel: &str, on_message: &js_sys::Function);

    /// Posts the message `text` (JSON text) on the channel of `watch_calls` (nothing when it could not be opened).
    #[wasm_bindgen(js_name = postCalls)]
    pub fn post_calls(text: &str);
}

/// `js/values.js`: errors, JSON text of results, thrown values, careful parsing.
#[wasm_bindgen(module = "/js/values.js")]
extern "C" {
    /// An `Error` with the given fields (`name` only when not plain "Error"; absent fields stay absent).
    #[wasm_bindgen(js_name = makeError)]
    pub fn make_error(message: &str, name: &str, code: &str, status: JsValue, retry_after: JsValue) -> JsValue;

    /// JSON text of any value, made safe to post (dates, undefined, functions, DOM nodes, cycles, BigInt).
    #[wasm_bindgen(js_name = safeJson, catch)]
    pub fn safe_json(value: &JsValue) -> Result<js_sys::JsString, JsValue>;

    /// `{ message, name?, status?, retryAfter? }` of whatever a tool threw.
    #[wasm_bindgen(js_name = describeThrown)]
    pub fn describe_thrown(thrown: &JsValue) -> JsValue;

    /// `JSON.parse` that drops every `__proto__` key.
    #[wasm_bindgen(js_name = parseWithoutProtoKeys, catch)]
    pub fn parse_without_proto_keys(text: &str) -> Result<JsValue, JsValue>;

    /// A value as text: a string as it is, else its JSON, else `String(value)` or its class tag (never throws).
    #[wasm_bindgen(js_name = describeValue)]
    pub fn describe_value(value: &JsValue) -> String;

}

/// `js/windows.js`: the windows around this page.
#[wasm_bindgen(module = "/js/windows.js")]
extern "C" {
    /// `win.postMessage(message, targetOrigin[, transfer])` on a window of any origin.
    #[wasm_bindgen(js_name = postToWindow, catch)]
    pub fn post_to_window(
        win: &JsValue,
        message: &JsValue,
        target_origin: &str,
        transfer: &JsValue,
    ) -> Result<(), JsValue>;

    #[wasm_bindgen(js_name = isWindow)]
    pub fn is_window(value: &JsValue) -> bool;

    #[wasm_bindgen(js_name = windowClosed)]
    pub fn window_closed(win: &JsValue) -> bool;

    /// "top", or the frame indexes from the top window ("top/1/0").
    #[wasm_bindgen(js_name = framePath)]
    pub fn frame_path() -> String;

    /// `[{ window, locator }]`: the parent, its frames, this page's frames, the opener.
    #[wasm_bindgen(js_name = candidateWindows)]
    pub fn candidate_windows() -> js_sys::Array;

    /// Whether `win` is an ancestor of this window (its parent, ..., the top window).
    #[wasm_bindgen(js_name = isAncestor)]
    pub fn is_ancestor(win: &JsValue) -> bool;

    /// The iframe element of this document whose window is `win`, or null.
    #[wasm_bindgen(js_name = frameElementOf)]
    pub fn frame_element_of(win: &JsValue) -> JsValue;

    /// Origins that windows around this page probably have (ancestorOrigins, iframe src).
    #[wasm_bindgen(js_name = originHints)]
    pub fn origin_hints() -> js_sys::Array;

}

/// `js/cache.js`: the bridge's BroadcastChannels, closed while the page is in the back/forward cache.
#[wasm_bindgen(module = "/js/cache.js")]
extern "C" {
    /// The page goes into the cache: its channels close.
    #[wasm_bindgen(js_name = intoCache)]
    pub fn into_cache();

    /// The page is back from the cache: its channels open again.
    #[wasm_bindgen(js_name = backFromCache)]
    pub fn back_from_cache();
}

/// `js/tab_claim.js`: which tab and frame slot this page is; the browser's part (Web Locks, the channel, the timer,
/// HMAC-SHA-256), the claim itself being the policy's `TabClaim` (`tab.rs`).
#[wasm_bindgen(module = "/js/tab_claim.js")]
extern "C" {
    /// Requests the lock of a tab id this page has just drawn (its lock token `token`, in frame `slot`), at once,
    /// and holds it if granted; resolves "taken", "held" or "failed".
    #[wasm_bindgen(js_name = requestFreshLock)]
    pub fn request_fresh_lock(token: &str, slot: &str) -> js_sys::Promise;

    /// Resolves `{ key, slot, lockName, nonce, expected }` for `tab` in `slot` (the lock named by `token` when it
    /// is given), or null without Web Locks or Web Crypto.
    #[wasm_bindgen(js_name = tabSecrets)]
    pub fn tab_secrets(tab: &str, slot: &str, token: Option<&str>) -> js_sys::Promise;

    /// Runs the claim of `tab_secrets`' lock, handing every event to `step(event, data, proof)` and carrying out the
    /// effects it answers; resolves with the outcome once an effect settles it. `first`: `request_fresh_lock`'s
    /// promise when the first request was made already.
    #[wasm_bindgen(js_name = claimLock)]
    pub fn claim_lock(
        secrets: &JsValue,
        channel_name: &str,
        step: &js_sys::Function,
        first: Option<&js_sys::Promise>,
    ) -> js_sys::Promise;

    /// Lets go of the tab's lock while a navigation that replaces the page starts (Firefox keeps a page that holds
    /// a Web Lock out of its back/forward cache).
    #[wasm_bindgen(js_name = letGoOfTabLock)]
    pub fn let_go_of_tab_lock();

    /// Asks for the tab's lock again: the page stays after all, or is back from the back/forward cache.
    #[wasm_bindgen(js_name = takeTabLockAgain)]
    pub fn take_tab_lock_again();

}

/// `js/tools.js`: running a page's tool, tool objects, the install mark.
#[wasm_bindgen(module = "/js/tools.js")]
extern "C" {
    #[wasm_bindgen(js_name = setToolSettler)]
    pub fn set_tool_settler(callback: &js_sys::Function);

    /// Calls `execute.call(this, JSON.parse(args), { signal })` in a microtask; the settler hears how it ended.
    #[wasm_bindgen(js_name = runTool)]
    pub fn run_tool(token: u32, execute: &js_sys::Function, this: &JsValue, args: &str, signal: &web_sys::AbortSignal);

    /// Whether `value` is an `AbortSignal` of any window (`instanceof` knows only this window's class).
    #[wasm_bindgen(js_name = isAbortSignal)]
    fn is_abort_signal(value: &JsValue) -> bool;

    /// The `document.modelContext` of a bridge any copy of this module installed in this page, or undefined.
    #[wasm_bindgen(js_name = installedBridge)]
    pub fn installed_bridge() -> JsValue;

    #[wasm_bindgen(js_name = markInstalled)]
    pub fn mark_installed(context: &JsValue);

    /// A frozen tool object as `getTools` returns it, tied to the bridge's peer `reference`.
    #[wasm_bindgen(js_name = makeToolObject)]
    pub fn make_tool_object(
        name: &str,
        description: &str,
        input_schema: &JsValue,
        annotations: &JsValue,
        origin: &str,
        window: &JsValue,
        reference: u32,
    ) -> JsValue;

    /// The peer reference of a tool object from `getTools`, or -1.
    #[wasm_bindgen(js_name = toolRef)]
    pub fn tool_ref(tool: &JsValue) -> i32;
}

/// `js/size.js`: the size of a message, measured before serialization.
#[wasm_bindgen(module = "/js/size.js")]
extern "C" {
    /// Whether `value` would take more than `max_chars` characters of JSON text; found by a walk that stops when
    /// the budget is spent, without serializing or copying anything.
    #[wasm_bindgen(js_name = exceedsJsonSize)]
    pub fn exceeds_json_size(value: &JsValue, max_chars: usize) -> bool;
}

/// `value` as an `AbortSignal` when it is one, of this window or of another (a frame's `AbortController`).
pub fn abort_signal(value: JsValue) -> Option<web_sys::AbortSignal> {
    is_abort_signal(&value).then(|| value.unchecked_into())
}
