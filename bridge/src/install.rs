//! Installing the page's one bridge, for the Rust API and (with the `js-api` feature) the JavaScript one.

use std::rc::Rc;

use crate::core::Core;
use crate::{BridgeError, BridgeOptions, console};

/// Installs the bridge, or returns the one this module already installed (its options win). It keeps the
/// browser's native `document.modelContext`, if any, to register every tool there too. With the `js-api` feature
/// it also makes the bridge's `document.modelContext` object and defines it where the page has none or has the
/// browser's own.
pub(crate) fn install_core(options: BridgeOptions) -> Result<Rc<Core>, BridgeError> {
    if let Some(core) = Core::installed() {
        return Ok(core);
    }
    for warning in options.expose_tools_to.warnings() {
        console::warn(&format!("expose-tools-to: {warning}"));
    }
    let core = Core::install(options)?;
    crate::native::adopt();
    #[cfg(feature = "js-api")]
    crate::js_api::define_model_context(&core);
    #[cfg(feature = "js-api")]
    crate::native::watch_other_registrations();
    crate::forms::start();
    Ok(core)
}
