//! Installing the page's one bridge, for the Rust API and (with the `js-api` feature) the JavaScript one.

use std::rc::Rc;

use crate::driver::Driver;
use crate::{BridgeError, BridgeOptions, console};

/// Installs the bridge, or returns the one this module already installed (its options win; other options are
/// warned of). It keeps the browser's native `document.modelContext`, if any, to register every tool there too.
/// With the `js-api` feature it also makes the bridge's `document.modelContext` object and defines it where the
/// page has none or has the browser's own.
pub(crate) fn install_core(options: BridgeOptions) -> Result<Rc<Driver>, BridgeError> {
    if let Some(driver) = Driver::installed() {
        crate::options::warn_if_other(&driver.options, &options);
        return Ok(driver);
    }
    // Before anything changes in the page: without random numbers there is no bridge.
    let mut entropy = crate::random::CryptoEntropy;
    let fresh = crate::tab::FreshTab::draw(&mut entropy)?;
    for warning in options.expose_tools_to.warnings() {
        console::warn(&format!("expose-tools-to: {warning}"));
    }
    let native = crate::native::adopt().is_some();
    let driver = Driver::install(options, native, entropy)?;
    if native {
        crate::native::connect(&driver);
    }
    // Which tab and frame this page is decides which journal entries are its own; the journals open after.
    crate::tab::claim_owner(driver.clone(), fresh);
    crate::forms::start(&driver);
    Ok(driver)
}
