//! Changes to this page's catalog: registering and unregistering tools, and telling the windows that listed it.

use gloo_events::EventListener;
use webmcp_policy::RequestId;

use crate::BridgeError;
use crate::consumer::Waiter;
use crate::core::{State, with_core};
use crate::registry::LocalTool;

impl State {
    /// Adds a tool; `signal`, when given, unregisters it on abort.
    pub(crate) fn register(
        &mut self,
        tool: LocalTool,
        signal: Option<web_sys::AbortSignal>,
    ) -> Result<u64, BridgeError> {
        let name = tool.name.to_string();
        let registration = self.registry.add(tool)?;
        if let Some(signal) = signal {
            let guard = EventListener::once(&signal, "abort", move |_| {
                with_core(|state| state.unregister(&name, Some(registration)));
            });
            self.abort_guards.insert(registration, guard);
        }
        self.announce_tools_changed();
        Ok(registration)
    }

    /// Adds a tool as [`State::register`] does, and registers it with the browser's native WebMCP too where the
    /// page has it (docs/native.md). Declarative forms do not come here: forms.rs registers a form with native itself,
    /// in place of native's own tool for the form (whose schema would take the visitor's password).
    pub(crate) fn register_everywhere(
        &mut self,
        tool: LocalTool,
        signal: Option<web_sys::AbortSignal>,
    ) -> Result<u64, BridgeError> {
        let registration = self.register(tool, signal)?;
        self.register_with_native(registration);
        Ok(registration)
    }

    /// Removes a tool (only `registration` of it, when given), from native too. Whether one was removed.
    pub(crate) fn unregister(&mut self, name: &str, registration: Option<u64>) -> bool {
        let found = self
            .registry
            .all()
            .iter()
            .find(|t| t.name.as_str() == name && registration.is_none_or(|r| r == t.registration))
            .map(|t| t.registration);
        let removed = self.registry.remove(name, registration);
        if removed {
            if let Some(found) = found {
                self.abort_guards.remove(&found);
                self.unregister_from_native(found);
            }
            self.announce_tools_changed();
        }
        removed
    }

    /// Stops the calls whose every waiter was a Rust future that has been dropped.
    pub(crate) fn stop_abandoned_calls(&mut self) {
        let abandoned: Vec<RequestId> = self
            .calls
            .iter()
            .filter(|(_, call)| {
                !call.waiters.is_empty()
                    && call.waiters.iter().all(|w| matches!(w, Waiter::Rust(sender) if sender.is_abandoned()))
            })
            .map(|(wire, _)| wire.clone())
            .collect();
        for wire in abandoned {
            self.stop(&wire, None);
        }
    }
}
