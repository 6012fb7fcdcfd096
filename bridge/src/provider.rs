//! Answering other windows: listing the tools visible to the caller's origin, running calls once, and replying
//! to the window (or port) the request came from, at its origin.

use wasm_bindgen::JsValue;
use webmcp_policy::envelope::{CallState, CallStatusResponse, ExecuteRequest, GetToolsResponse, ThrownError};
use webmcp_policy::guard::{RateDecision, RefusalKind};
use webmcp_policy::journal::{CancelDecision, ExecuteDecision, StatusAnswer, ToolOutcome};
use webmcp_policy::{ErrorKind, JsonText, Message, RequestId, ToolError};

use crate::convert::outcome_to_response;
use crate::core::{From, State, Via};
use crate::peers::{PortLink, PortSide, SELF_PEER};
use crate::registry::Handler;
use crate::user::UserCall;
use crate::{console, js};

/// A call is known by its caller's origin and its id on the wire.
pub(crate) type RunKey = (String, RequestId);

/// A call running in this page.
pub(crate) struct Running {
    pub controller: web_sys::AbortController,
    /// Where the outcome goes: the latest window (or port) that asked about this call.
    pub reply_to: From,
}

impl State {
    pub(crate) fn on_get_tools(&mut self, from: &From, request_id: RequestId, bridge: bool) {
        let now = self.now();
        if from.peer != SELF_PEER && matches!(self.rate.check(&from.origin, now), RateDecision::Limit { .. }) {
            self.refuse(RefusalKind::GetToolsRateLimited, &from.origin, "tool list requests beyond the rate limit");
            return;
        }
        let max = self.options.limits.max_tools_per_response;
        let tools: Vec<_> = self
            .registry
            .visible_to(&from.origin, &self.own_origin, &self.options.expose_tools_to)
            .take(max)
            .map(|t| t.descriptor(&self.own_origin))
            .collect();
        if let Some(peer) = self.peers.get_mut(from.peer) {
            peer.listed_ours = true;
            peer.sees_ours = !tools.is_empty();
            peer.bridge |= bridge;
        }
        self.reply(from, &Message::GetToolsResponse(GetToolsResponse { request_id, tools, bridge: true }));
    }

    pub(crate) fn on_execute(&mut self, from: &From, request: ExecuteRequest) {
        let ExecuteRequest { request_id, name, args, resend } = request;
        let visible =
            self.registry.visible(name.as_str(), &from.origin, &self.own_origin, &self.options.expose_tools_to);
        let Some(tool) = visible else {
            // A tool the caller may not see gets the same answer as one that does not exist.
            self.refuse(
                RefusalKind::OriginNotAllowed,
                &from.origin,
                &format!("a call of {name}, a tool it cannot see"),
            );
            let error = ToolError::new(ErrorKind::UnknownTool, format!("Tool {name} not found"));
            return self.reply_failure(from, request_id, error);
        };
        let (handler, checker) = (tool.handler.clone(), tool.checker.clone());
        let now = self.now();
        let Some(journals) = self.journals.as_mut() else { return };
        let decision = if resend {
            journals.provider.on_resend(&from.origin, &request_id, &name, now)
        } else {
            journals.provider.on_execute(&from.origin, &request_id, &name, now)
        };
        match decision {
            ExecuteDecision::Run => {}
            ExecuteDecision::AlreadyRunning => {
                if let Some(running) = self.running.get_mut(&(from.origin.clone(), request_id)) {
                    running.reply_to = from.clone();
                }
                return;
            }
            ExecuteDecision::Reply(outcome) => {
                let response = outcome_to_response(request_id, outcome, &self.options.limits);
                return self.reply(from, &Message::ExecuteResponse(response));
            }
            ExecuteDecision::Refuse(error) => {
                if error.kind == ErrorKind::TooManyCalls {
                    self.refuse(RefusalKind::TooManyCalls, &from.origin, "a call beyond the calls-in-flight limit");
                }
                return self.reply_failure(from, request_id, error);
            }
        }
        self.schedule_journal_flush();
        if let Some(checker) = checker {
            let problem = match args.to_value() {
                Ok(value) => checker.check(&value).err().map(|e| e.to_string()),
                Err(error) => Some(error.to_string()),
            };
            if let Some(problem) = problem {
                let error = ToolError::new(ErrorKind::InvalidArgs, format!("invalid arguments for {name}: {problem}"));
                return self.finish(&(from.origin.clone(), request_id), ToolOutcome::Failed(error), Some(from.clone()));
            }
        }
        let Ok(controller) = web_sys::AbortController::new() else { return };
        let key = (from.origin.clone(), request_id);
        let token = self.next_token;
        self.next_token = self.next_token.wrapping_add(1).max(1);
        self.run_tokens.insert(token, key.clone());
        let signal = controller.signal();
        self.running.insert(key, Running { controller, reply_to: from.clone() });
        // "Running" reaches storage with the next batch, or when the page goes away; a page that crashes first
        // leaves its successor a note that records may be missing (tab.rs, once-only.md §7).
        self.schedule_journal_flush();
        self.user_calls.push(match handler {
            Handler::Js { execute, this } => {
                UserCall::RunJsTool { token, execute, this, args: args.into_string(), signal }
            }
            Handler::Rust(run) => UserCall::RunRustTool { token, run, args, signal },
        });
    }

    /// A JavaScript tool settled (through glue.js `runTool`).
    pub(crate) fn tool_settled(&mut self, token: u32, settled: Result<JsValue, JsValue>) {
        let Some(key) = self.run_tokens.remove(&token) else { return };
        let outcome = match settled {
            Ok(value) => match js::safe_json(&value) {
                Ok(text) => match JsonText::parse(&text, &self.options.limits) {
                    Ok(result) => ToolOutcome::Completed { result: result.into_string() },
                    Err(error) => ToolOutcome::Failed(ToolError::new(
                        ErrorKind::ToolError,
                        format!("the tool's result cannot be sent: {error}"),
                    )),
                },
                Err(error) => ToolOutcome::Failed(ToolError::new(
                    ErrorKind::ToolError,
                    format!("the tool's result cannot be sent: {}", console::describe(&error)),
                )),
            },
            Err(thrown) => ToolOutcome::Failed(self.thrown_to_error(&thrown)),
        };
        self.finish(&key, outcome, None);
    }

    /// A Rust tool settled.
    pub(crate) fn rust_tool_settled(&mut self, token: u32, settled: Result<serde_json::Value, ToolError>) {
        let Some(key) = self.run_tokens.remove(&token) else { return };
        let outcome = match settled {
            Ok(value) => ToolOutcome::Completed { result: JsonText::from_value(&value).into_string() },
            Err(error) => ToolOutcome::Failed(error),
        };
        self.finish(&key, outcome, None);
    }

    fn thrown_to_error(&self, thrown: &JsValue) -> ToolError {
        let described = js::describe_thrown(thrown);
        let field = |name: &str| -> serde_json::Value {
            js_sys::Reflect::get(&described, &JsValue::from_str(name))
                .ok()
                .and_then(|v| js_sys::JSON::stringify(&v).ok())
                .and_then(|t| t.as_string())
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or(serde_json::Value::Null)
        };
        let (message, name, status, retry_after) =
            (field("message"), field("name"), field("status"), field("retryAfter"));
        ThrownError { message: &message, name: &name, status: &status, retry_after: &retry_after }
            .to_tool_error(&self.options.limits)
    }

    /// Records how a call ended and sends it where the latest question about it came from: `asker` for a call
    /// that ends before it runs, else the window (or port) recorded when it started or last asked about it. An
    /// outcome whose asker is unknown is kept for the status query that will come, never sent to another window
    /// of the same origin.
    fn finish(&mut self, key: &(String, RequestId), outcome: ToolOutcome, asker: Option<From>) {
        let now = self.now();
        let reply_to = self.running.remove(key).map(|r| r.reply_to).or(asker);
        let Some(journals) = self.journals.as_mut() else { return };
        let Some(outcome) = journals.provider.on_finish(&key.0, &key.1, outcome, now) else { return };
        self.schedule_journal_flush();
        let Some(reply_to) = reply_to else { return };
        let response = outcome_to_response(key.1.clone(), outcome, &self.options.limits);
        self.reply(&reply_to, &Message::ExecuteResponse(response));
    }

    pub(crate) fn on_cancel(&mut self, from: &From, request_id: &RequestId) {
        let now = self.now();
        let visible = self.registry.any_visible(&from.origin, &self.own_origin, &self.options.expose_tools_to);
        let Some(journals) = self.journals.as_mut() else { return };
        if !visible && journals.provider.record(&from.origin, request_id).is_none() {
            // An origin that sees no tool has no call to stop: its cancels would only fill the journal.
            return self.refuse(
                RefusalKind::OriginNotAllowed,
                &from.origin,
                "a cancel from an origin that sees no tool",
            );
        }
        let decision = journals.provider.on_cancel(&from.origin, request_id, now);
        self.schedule_journal_flush();
        if decision == CancelDecision::AbortRunning
            && let Some(running) = self.running.remove(&(from.origin.clone(), request_id.clone()))
        {
            self.user_calls.push(UserCall::Abort(running.controller));
        }
    }

    pub(crate) fn on_status_request(&mut self, from: &From, request_id: RequestId) {
        let now = self.now();
        let Some(journals) = self.journals.as_mut() else { return };
        let durable = journals.provider.is_durable();
        let answer = journals.provider.on_status(&from.origin, &request_id, now);
        let message = match answer {
            StatusAnswer::Outcome(outcome) => {
                Message::ExecuteResponse(outcome_to_response(request_id, outcome, &self.options.limits))
            }
            StatusAnswer::Running => {
                if let Some(running) = self.running.get_mut(&(from.origin.clone(), request_id.clone())) {
                    running.reply_to = from.clone();
                }
                Message::CallStatusResponse(CallStatusResponse { request_id, state: CallState::Running, durable })
            }
            StatusAnswer::Unknown { durable } => {
                Message::CallStatusResponse(CallStatusResponse { request_id, state: CallState::Unknown, durable })
            }
        };
        self.reply(from, &message);
    }

    pub(crate) fn on_ack(&mut self, from: &From, request_ids: &[RequestId]) {
        let now = self.now();
        if let Some(journals) = self.journals.as_mut() {
            journals.provider.on_ack(&from.origin, request_ids, now);
            self.schedule_journal_flush();
        }
    }

    /// A consumer offers a private port for its calls to this page. Accepted when its origin may see at least one
    /// tool; it replaces an earlier port of the same peer for that purpose (the consumer set up a new one), and
    /// never touches the port of this page's own calls to the peer.
    pub(crate) fn on_connect(&mut self, from: &From, request_id: RequestId, port: Option<web_sys::MessagePort>) {
        let Some(port) = port else { return };
        if from.via != Via::Window
            || !self.registry.any_visible(&from.origin, &self.own_origin, &self.options.expose_tools_to)
        {
            port.close();
            return self.refuse(
                RefusalKind::OriginNotAllowed,
                &from.origin,
                "a private port from an origin that sees no tool",
            );
        }
        let peer_id = from.peer;
        let Some(peer) = self.peers.get_mut(peer_id) else { return };
        peer.bridge = true;
        peer.theirs = Some(PortLink::listen(port, peer_id, PortSide::Theirs));
        self.send(peer_id, &Message::Connected { request_id });
    }

    /// Tells the windows that listed our tools that they changed: those whose origin saw at least one tool before
    /// the change or sees one after it. An origin that sees nothing either way learns nothing of tools hidden
    /// from it.
    pub(crate) fn announce_tools_changed(&mut self) {
        let mut told = Vec::new();
        let (own, expose) = (&self.own_origin, &self.options.expose_tools_to);
        for peer in self.peers.iter_mut().filter(|p| p.listed_ours && p.id != SELF_PEER && p.bridge) {
            let sees_now = self.registry.any_visible(&peer.origin, own, expose);
            if peer.sees_ours || sees_now {
                told.push(peer.id);
            }
            peer.sees_ours = sees_now;
        }
        for peer in told {
            self.send(peer, &Message::ToolsChanged);
        }
        self.user_calls.push(UserCall::FireToolChange);
    }

    /// Tells the windows around this page that it has tools, addressed to the origins that may see them: the
    /// page's own and every exact origin of its lists. Consumers that asked too early list again.
    pub(crate) fn announce_presence(&mut self) {
        let mut origins: Vec<String> = vec![self.own_origin.clone()];
        let lists = std::iter::once(&self.options.expose_tools_to)
            .chain(self.registry.all().iter().filter_map(|t| t.exposed_to.as_ref()));
        for list in lists {
            for pattern in list {
                if !pattern.is_wildcard() {
                    let origin = pattern.as_str().to_owned();
                    if !origins.contains(&origin) {
                        origins.push(origin);
                    }
                }
            }
        }
        let text = Message::ToolsChanged.encode();
        let Ok(object) = js_sys::JSON::parse(&text) else { return };
        for candidate in js::candidate_windows().iter() {
            let window = js_sys::Reflect::get(&candidate, &JsValue::from_str("window")).unwrap_or(JsValue::NULL);
            for origin in &origins {
                let _ = js::post_to_window(&window, &object, origin, &JsValue::UNDEFINED);
            }
        }
    }
}
