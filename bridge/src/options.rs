//! How a page configures its bridge, from Rust (`BridgeOptions`) or from JavaScript (`install({...})`).

use interpane_policy::journal::JournalConfig;
use interpane_policy::session;
use interpane_policy::{Limits, OriginList, ParseOptions};
use wasm_bindgen::{JsCast, JsValue};

use crate::{BridgeError, BrowserUrl, console};

/// The bridge's settings. Every limit has a defensive default; none is unbounded.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BridgeOptions {
    /// The origins that may see this page's tools (besides its own origin): `expose-tools-to`. A tool registered
    /// with its own `exposedTo` list uses that instead. Empty by default: no other origin sees anything.
    pub expose_tools_to: OriginList,
    /// Message and flood limits.
    pub limits: Limits,
    /// How long the call journals keep what.
    pub journal: JournalConfig,
    /// How long `getTools` waits for windows that have not answered (ms).
    pub discovery_timeout_ms: u32,
    /// How long after a provider's change notice the consumer lists its tools again (ms).
    pub toolchange_debounce_ms: u32,
    /// How long journal changes may wait before they are written, batched (ms). A provider's "running" record is
    /// always written before its tool starts, and everything is written when the page is hidden or goes away.
    pub flush_delay_ms: u32,
    /// Keep the journals in sessionStorage (true, the default) or only in memory.
    pub session_storage: bool,
}

impl Default for BridgeOptions {
    fn default() -> Self {
        Self {
            expose_tools_to: OriginList::empty(),
            limits: Limits::default(),
            journal: JournalConfig::default(),
            discovery_timeout_ms: session::DISCOVERY_TIMEOUT_MS,
            toolchange_debounce_ms: session::TOOLCHANGE_DEBOUNCE_MS,
            flush_delay_ms: session::FLUSH_DELAY_MS,
            session_storage: true,
        }
    }
}

impl BridgeOptions {
    /// Options whose `expose_tools_to` is `list`.
    pub fn exposing_to(list: OriginList) -> Self {
        Self { expose_tools_to: list, ..Self::default() }
    }

    /// Sets the longest result sent, in characters of JSON (default 30,000); longer ones are sent as
    /// `{ truncated: true, preview }`.
    pub fn result_cap(mut self, chars: usize) -> Self {
        self.limits.max_result_chars = chars;
        self.journal.result_cap_chars = chars;
        self
    }

    /// Reads the options object of `install()`.
    pub(crate) fn from_js(value: &JsValue) -> Result<Self, BridgeError> {
        let mut options = Self::default();
        if value.is_undefined() || value.is_null() {
            return Ok(options);
        }
        if !value.is_object() {
            return Err(BridgeError::invalid("install(options): options must be an object"));
        }
        let wildcards = get(value, "allowWildcards").as_bool().unwrap_or(false);
        let parse = ParseOptions::default().allow_wildcards(wildcards);
        let list = get(value, "exposeToolsTo");
        let element = get(value, "element");
        if !list.is_undefined() {
            options.expose_tools_to = origin_list(&list, parse, "exposeToolsTo")?;
        } else if let Some(element) = element.dyn_ref::<web_sys::Element>() {
            let text = element.get_attribute("expose-tools-to").unwrap_or_default();
            options.expose_tools_to = OriginList::parse_using(&text, parse, &BrowserUrl)
                .map_err(|source| BridgeError::Origins { field: "expose-tools-to", source })?;
        } else if !element.is_undefined() {
            return Err(BridgeError::invalid(
                "install(options): element must be a DOM element with an expose-tools-to attribute",
            ));
        }
        if let Some(cap) = positive(value, "resultCap")? {
            options = options.result_cap(cap as usize);
        }
        if let Some(max) = positive(value, "maxCallsInFlight")? {
            options.limits.max_calls_in_flight_per_origin = max as usize;
            options.journal.running_per_origin_max = max as usize;
        }
        if let Some(max) = positive(value, "maxPendingCalls")? {
            options.journal.unsettled_calls_max = max as usize;
        }
        if let Some(bytes) = positive(value, "maxHeldResultBytes")? {
            options.journal.held_result_bytes_per_origin_max = bytes as usize;
        }
        if let Some(ms) = positive(value, "discoveryTimeoutMs")? {
            options.discovery_timeout_ms = ms as u32;
        }
        match get(value, "storage").as_string().as_deref() {
            None | Some("session") => {}
            Some("memory") => options.session_storage = false,
            Some(other) => {
                return Err(BridgeError::invalid(format!(
                    "install(options): storage must be \"session\" or \"memory\", not {}",
                    interpane_policy::quote::quoted(other)
                )));
            }
        }
        Ok(options)
    }
}

pub(crate) type Options = BridgeOptions;

/// The options `install()` takes: the only list of them. The package's entry warns of any other key with this list
/// (`installOptions()`), and the types name them (`InstallOptions`).
pub(crate) const INSTALL_OPTIONS: [&str; 9] = [
    "exposeToolsTo",
    "element",
    "allowWildcards",
    "resultCap",
    "maxCallsInFlight",
    "maxPendingCalls",
    "maxHeldResultBytes",
    "discoveryTimeoutMs",
    "storage",
];

/// "The first `install()` wins", for both APIs: a second install with other options keeps the first bridge and its
/// options, and says so, with both origin lists when they are what differs.
pub(crate) fn warn_if_other(first: &BridgeOptions, again: &BridgeOptions) {
    // The same entries in any order (no sort: its code would be one more copy in the wasm).
    let (a, b) = (&first.expose_tools_to, &again.expose_tools_to);
    let same_lists = a.len() == b.len() && a.iter().all(|p| b.iter().any(|q| q.as_str() == p.as_str()));
    let same_rest = first.limits == again.limits
        && first.journal == again.journal
        && first.discovery_timeout_ms == again.discovery_timeout_ms
        && first.toolchange_debounce_ms == again.toolchange_debounce_ms
        && first.flush_delay_ms == again.flush_delay_ms
        && first.session_storage == again.session_storage;
    if !same_lists {
        console::warn(&format!(
            "install() was called again with other options (exposeToolsTo: \"{b}\"); the first call's options \
             (exposeToolsTo: \"{a}\") stay in force: a page has one bridge. Call install() once, or pass no options."
        ));
    } else if !same_rest {
        // The lists are the same: naming them would hide what differs.
        console::warn(
            "install() was called again with other options; the first call's options stay in force: a page has one \
             bridge. Call install() once, or pass no options.",
        );
    }
}

pub(crate) fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn positive(object: &JsValue, key: &str) -> Result<Option<f64>, BridgeError> {
    let value = get(object, key);
    if value.is_undefined() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(n) if n.is_finite() && n >= 1.0 && n <= f64::from(u32::MAX) => Ok(Some(n.floor())),
        _ => Err(BridgeError::invalid(format!("{key} must be a positive number"))),
    }
}

/// An origin list given as one comma-separated string or as an array of strings.
pub(crate) fn origin_list(
    value: &JsValue,
    parse: ParseOptions,
    field: &'static str,
) -> Result<OriginList, BridgeError> {
    if let Some(text) = value.as_string() {
        return OriginList::parse_using(&text, parse, &BrowserUrl)
            .map_err(|source| BridgeError::Origins { field, source });
    }
    if js_sys::Array::is_array(value) {
        let array: &js_sys::Array = value.unchecked_ref();
        let mut entries = Vec::with_capacity(array.length() as usize);
        for item in array.iter() {
            entries.push(
                item.as_string()
                    .ok_or_else(|| BridgeError::invalid(format!("{field}: every entry must be a string")))?,
            );
        }
        return OriginList::from_entries_using(entries, parse, &BrowserUrl)
            .map_err(|source| BridgeError::Origins { field, source });
    }
    Err(BridgeError::invalid(format!("{field} must be a string or an array of strings")))
}
