//! Calls of this page's tools that come through the browser's native WebMCP: the browser's agent, or a frame that
//! reaches this page only through native (`executeTool` in a native-only page). Native calls the `execute` the bridge
//! registered with it; the driver hands the call here, and from here on it is one of the page's own calls of its own
//! tools ([`PeerId::SELF`]): the same argument rules and limits, the schema check, both journals, `toolactivated`,
//! `toolcancel` when native's caller aborts, `toolresult`, and what a reload or a stop does to a call.

use crate::call_args::accept_call_args;
use crate::journal::CallOutcome;
use crate::outcome::{ErrorKind, ToolError};
use crate::session::Session;
use crate::session::calls::PageCall;
use crate::session::ids::{PeerId, WaiterId};
use crate::session::io::{Effect, Finished, FromNative};
use crate::session::journals::Deferred;

/// What a native caller gets when the tool it called was unregistered after native listed it.
pub const UNREGISTERED_MESSAGE: &str = "the tool was unregistered before the call could run it";

impl Session {
    /// A call that native made of registration `call.registration`: refused when that registration is gone (a tool
    /// of the same name registered since is another tool) or its arguments break the rules; else made as a call of
    /// this page.
    pub(super) fn call_from_native(&mut self, call: FromNative) {
        let FromNative { waiter, registration, name, args } = call;
        let tool = self.catalog.all().iter().find(|t| t.registration == registration).map(|t| t.spec.name.clone());
        let Some(tool) = tool else {
            let error = ToolError::new(ErrorKind::UnknownTool, UNREGISTERED_MESSAGE);
            return self.refuse_from_native(waiter, &name, error);
        };
        let text = args.as_deref().unwrap_or("{}");
        match accept_call_args(text, &self.config.limits) {
            Ok(args) => {
                let call = PageCall {
                    waiter,
                    peer: PeerId::SELF,
                    tool,
                    args,
                    call_id: None,
                    timeout_ms: None,
                    stopped: false,
                };
                self.when_journals_open(Deferred::Execute(call));
            }
            Err(error) => {
                let error = ToolError::new(ErrorKind::InvalidArgs, format!("{tool}: {error}"));
                self.refuse_from_native(waiter, tool.as_str(), error);
            }
        }
    }

    /// Settles native's wait with `error`, and tells the page with `toolresult`: unlike the page's own refused
    /// calls, which it made and sees refused, a call through native is known to the page only through the bridge.
    fn refuse_from_native(&mut self, waiter: WaiterId, tool: &str, error: ToolError) {
        let outcome = CallOutcome::Failed(error);
        // Without random numbers for its callId, the page hears nothing of it; native's caller still gets the error.
        if let Ok(call_id) = self.ids.request_id("c_") {
            self.effects.push_back(Effect::ToolResult(Finished {
                call_id: call_id.to_string(),
                name: tool.to_owned(),
                origin: self.config.own_origin.clone(),
                outcome: outcome.clone(),
                duration_ms: 0,
                recovered: false,
            }));
        }
        self.effects.push_back(Effect::Settle { waiter, outcome });
    }
}
