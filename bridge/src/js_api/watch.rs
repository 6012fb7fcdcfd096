//! Tools that other code on the page registers with the browser's native WebMCP after `install()` become the
//! bridge's too (docs/native.md, "Tools registered with native by other code").

use interpane_policy::OriginList;
use interpane_policy::guard::RefusalKind;
use wasm_bindgen::prelude::*;

use crate::driver::Driver;

/// Watches the tools that other code on the page registers with native after `install()` (through a reference to
/// the native object it kept) and registers each with the bridge too, with exactly the `exposedTo` it gave native
/// (none: no other origin), so that the windows native does not reach (openers, popups, frames without
/// `allow="tools"`) see it under the same rule; aborting its signal unregisters it from both. A tool the bridge
/// cannot take (a name it already has, a schema it refuses) stays native's only, with a warning. Tools registered
/// with native before `install()` are not exposed by the bridge (docs/native.md, "Tools registered with native by
/// other code").
pub(crate) fn watch_other_registrations(driver: &Driver) {
    let Some(native) = crate::native::registry::context() else { return };
    let driver = driver.weak();
    let registered = Closure::<dyn Fn(JsValue, JsValue)>::new(move |tool: JsValue, options: JsValue| {
        let Some(driver) = driver.upgrade() else { return };
        let signal = crate::js::abort_signal(crate::options::get(&options, "signal"));
        let local = super::checks::local_tool(&tool, &options, &driver.options.limits).map(|(mut spec, handler)| {
            spec.exposed_to.get_or_insert_with(OriginList::empty);
            // Native has it already.
            spec.to_native = false;
            (spec, handler)
        });
        let refused = match local {
            Ok((spec, handler)) => driver.register(spec, handler, signal).err(),
            Err(error) => Some(error),
        };
        if let Some(error) = refused {
            let name = crate::options::get(&tool, "name").as_string().unwrap_or_default();
            let text = format!(
                "a tool registered with the browser's WebMCP ({name}) stays there only: the bridge cannot take it ({error})"
            );
            driver.warn_own(RefusalKind::NativeRegistry, &text);
        }
    });
    crate::native::watch_native_registrations(&native, registered.as_ref().unchecked_ref());
    // Kept for the page's one bridge.
    registered.forget();
}
