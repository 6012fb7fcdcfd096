//! Answering other windows: who may list this page's tools, call, cancel, ask about a call or set up a port, and
//! where each answer goes. A call runs once (the provider journal decides) and its outcome goes to the window
//! (or port) that last asked about it, at the origin it asked from.

use crate::JsonText;
use crate::envelope::{CallState, CallStatusResponse, ExecuteRequest, ExecuteResponse, GetToolsResponse, Message};
use crate::guard::{RateDecision, RefusalKind};
use crate::ids::RequestId;
use crate::journal::{CancelDecision, ExecuteDecision, StatusAnswer, ToolOutcome};
use crate::outcome::{ErrorKind, ToolError};
use crate::session::ids::{PeerId, PortId, RunId};
use crate::session::io::{Departure, Effect, RunResult};
use crate::session::peers::{Link, PortSide, Sender, Via};
use crate::session::timers::{HELD_ERROR_MS, LIVENESS_MS, Timer};
use crate::session::{RunKey, Running, Session};

impl Session {
    /// `WEBMCP_GET_TOOLS_REQUEST`: the tools the sender's origin may see (rate-limited per origin).
    pub(crate) fn on_get_tools(&mut self, from: &Sender, request_id: RequestId, bridge: bool) {
        if from.peer != PeerId::SELF
            && matches!(self.rate.check(from.origin.serialization(), self.now), RateDecision::Limit { .. })
        {
            return self.refuse(
                RefusalKind::GetToolsRateLimited,
                &from.origin,
                "tool list requests beyond the rate limit",
            );
        }
        let (own, list) = (&self.config.own_origin, &self.config.expose_tools_to);
        let tools: Vec<_> = self
            .catalog
            .all()
            .iter()
            .filter(|t| t.visible_to(&from.origin, own, list))
            .take(self.config.limits.max_tools_per_response)
            .map(|t| t.descriptor(own))
            .collect();
        if let Some(peer) = self.peers.get_mut(from.peer) {
            peer.listed_ours = true;
            peer.sees_ours = !tools.is_empty();
            peer.bridge |= bridge;
        }
        self.reply(from, &Message::GetToolsResponse(GetToolsResponse { request_id, tools, bridge: true }));
    }

    /// `WEBMCP_EXECUTE_TOOL_REQUEST`: a tool the sender's origin cannot see gets the same answer as one that does
    /// not exist; the provider journal decides whether it runs, repeats an answer, or is refused; the arguments
    /// are checked against the schema before it runs.
    pub(crate) fn on_execute(&mut self, from: &Sender, request: ExecuteRequest) {
        let ExecuteRequest { request_id, name, args, resend } = request;
        let (own, list) = (&self.config.own_origin, &self.config.expose_tools_to);
        let visible = self.catalog.get(name.as_str()).filter(|t| t.visible_to(&from.origin, own, list));
        let Some(tool) = visible else {
            self.refuse(
                RefusalKind::OriginNotAllowed,
                &from.origin,
                &format!("a call of {name}, a tool it cannot see"),
            );
            let error = ToolError::new(ErrorKind::UnknownTool, format!("Tool {name} not found"));
            return self.reply_failure(from, request_id, error);
        };
        let registration = tool.registration;
        let problem = tool.spec.checker.as_ref().and_then(|checker| match args.to_value() {
            Ok(value) => checker.check(&value).err().map(|e| e.to_message(&format!("invalid arguments for {name}: "))),
            Err(error) => Some(format!("invalid arguments for {name}: {error}")),
        });
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        let decision = if resend {
            journals.provider.on_resend(from.origin.serialization(), &request_id, &name, now)
        } else {
            journals.provider.on_execute(from.origin.serialization(), &request_id, &name, now)
        };
        let key: RunKey = (from.origin.clone(), request_id);
        match decision {
            ExecuteDecision::Run => {}
            ExecuteDecision::AlreadyRunning => {
                if let Some(running) = self.incoming.running.get_mut(&key) {
                    running.reply_to = from.clone();
                }
                return;
            }
            ExecuteDecision::Reply(outcome) => {
                let response = ExecuteResponse::from_outcome(key.1, outcome, &self.config.limits);
                return self.reply(from, &Message::ExecuteResponse(response));
            }
            ExecuteDecision::Refuse(error) => {
                if error.kind == ErrorKind::TooManyCalls {
                    self.refuse(RefusalKind::TooManyCalls, &from.origin, "a call beyond the calls-in-flight limit");
                }
                return self.reply_failure(from, key.1, error);
            }
        }
        self.schedule_journal_flush();
        if let Some(problem) = problem {
            let error = ToolError::new(ErrorKind::InvalidArgs, problem);
            return self.finish(&key, ToolOutcome::Failed(error), Some(from.clone()));
        }
        let run = RunId(self.incoming.next_run);
        self.incoming.next_run = self.incoming.next_run.wrapping_add(1).max(1);
        self.incoming.runs.insert(run, key.clone());
        self.incoming.running.insert(key, Running { run, reply_to: from.clone() });
        if from.peer != PeerId::SELF {
            // Its caller's window is watched while it runs: a caller that closes stops it (recovery.rs).
            self.timers.set_once(Timer::Liveness, self.now + LIVENESS_MS);
        }
        // "Running" reaches storage with the next batch, or when the page goes away; a page that crashes first
        // leaves its successor a note that records may be missing (once-only.md §7).
        self.effects.push_back(Effect::RunTool { run, registration, args });
    }

    /// A run of one of this page's tools ended.
    ///
    /// An error thrown while the page's document is about to go away may be the departure's doing rather than the
    /// tool's (WebKit cancels a page's loads as soon as a navigation starts, and a `fetch` in the tool rejects
    /// before `pagehide`): it is held. If the page goes away, the run is still running then and its caller learns
    /// that it was interrupted (docs/once-only.md §3); if the page stays, the error is sent when that is known
    /// ([`Departure::Stays`]) or after [`HELD_ERROR_MS`]. A result is never held: it is the tool's own.
    pub(crate) fn tool_settled(&mut self, run: RunId, result: RunResult) {
        let departing = self.departure != Departure::Stays;
        if departing && matches!(result, RunResult::Threw(_)) && self.incoming.runs.contains_key(&run) {
            self.incoming.held.push((run, result));
            self.timers.set_once(Timer::HeldErrors, self.now + HELD_ERROR_MS);
            return;
        }
        self.run_ended(run, result);
    }

    /// The page's document announced a departure, or that it stays after all ([`crate::session::Input::Navigating`]):
    /// the errors held while it seemed to leave are sent when it stays.
    pub(crate) fn navigating(&mut self, departure: Departure) {
        self.departure = departure;
        if departure == Departure::Stays {
            self.release_held_errors();
            // Back from the back/forward cache after it went away: alive again (journals.rs `alive_key`).
            if let Some(journals) = self.journals.as_mut().filter(|j| j.gone) {
                journals.gone = false;
                self.flush_journals();
            }
        }
    }

    /// The page still runs [`HELD_ERROR_MS`] after its errors were held: the navigation did not happen (or is
    /// slower than that), and they are sent. A departure nobody could name is forgotten then.
    pub(crate) fn held_errors_due(&mut self) {
        if self.departure == Departure::Unsure {
            self.departure = Departure::Stays;
        }
        self.release_held_errors();
    }

    fn release_held_errors(&mut self) {
        self.timers.clear(&Timer::HeldErrors);
        for (run, result) in std::mem::take(&mut self.incoming.held) {
            self.run_ended(run, result);
        }
    }

    fn run_ended(&mut self, run: RunId, result: RunResult) {
        let Some(key) = self.incoming.runs.remove(&run) else { return };
        let outcome = match result {
            RunResult::Returned(text) => match JsonText::parse(&text, &self.config.limits) {
                Ok(result) => ToolOutcome::Completed { result },
                Err(error) => ToolOutcome::Failed(ToolError::new(
                    ErrorKind::ToolError,
                    format!("the tool's result cannot be sent: {error}"),
                )),
            },
            RunResult::Unsendable(why) => ToolOutcome::Failed(ToolError::new(
                ErrorKind::ToolError,
                format!("the tool's result cannot be sent: {why}"),
            )),
            RunResult::Threw(error) => ToolOutcome::Failed(error),
        };
        self.finish(&key, outcome, None);
    }

    /// Records how a call ended and sends it where the latest question about it came from: `asker` for a call
    /// that ends before it runs, else the window (or port) recorded when it started or last asked. An outcome
    /// whose asker is unknown is kept for the status query that will come, never sent to another window of the
    /// same origin.
    fn finish(&mut self, key: &RunKey, outcome: ToolOutcome, asker: Option<Sender>) {
        let reply_to = self.incoming.running.remove(key).map(|r| r.reply_to).or(asker);
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        let Some(outcome) = journals.provider.on_finish(key.0.serialization(), &key.1, outcome, now) else { return };
        self.schedule_journal_flush();
        let Some(reply_to) = reply_to else { return };
        let response = ExecuteResponse::from_outcome(key.1.clone(), outcome, &self.config.limits);
        self.reply(&reply_to, &Message::ExecuteResponse(response));
    }

    fn reply_failure(&mut self, from: &Sender, request_id: RequestId, error: ToolError) {
        self.reply(from, &Message::ExecuteResponse(ExecuteResponse::failure(request_id, error)));
    }

    /// `WEBMCP_CANCEL_TOOL`: from an origin that sees a tool or has a call here; aborts the call when it runs.
    pub(crate) fn on_cancel(&mut self, from: &Sender, request_id: &RequestId) {
        let visible = self.any_visible(&from.origin);
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        if !visible && journals.provider.record(from.origin.serialization(), request_id).is_none() {
            // An origin that sees no tool has no call to stop: its cancels would only fill the journal.
            return self.refuse(
                RefusalKind::OriginNotAllowed,
                &from.origin,
                "a cancel from an origin that sees no tool",
            );
        }
        let decision = journals.provider.on_cancel(from.origin.serialization(), request_id, now);
        self.schedule_journal_flush();
        if decision == CancelDecision::AbortRunning
            && let Some(running) = self.incoming.running.remove(&(from.origin.clone(), request_id.clone()))
        {
            // Another window's call stopped before its turn came (its cancel in the same batch as its request)
            // never starts: its run is taken back before the driver sees it. The page's own call starts all the
            // same and is stopped at once, as native runs a tool before its caller's abort can reach it.
            if from.peer != PeerId::SELF
                && self
                    .effects
                    .take_first(|e| matches!(e, Effect::RunTool { run, .. } if *run == running.run))
                    .is_some()
            {
                self.incoming.runs.remove(&running.run);
                return;
            }
            self.effects.push_back(Effect::AbortRun(running.run));
        }
    }

    /// Stops the run of call `key` whose caller is gone for good (its window closed): recorded as cancelled, so
    /// that it never starts again and a later question gets `cancelled`, and its signal aborts.
    pub(crate) fn stop_run(&mut self, key: &RunKey) {
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        let decision = journals.provider.on_cancel(key.0.serialization(), &key.1, now);
        self.schedule_journal_flush();
        if decision == CancelDecision::AbortRunning
            && let Some(running) = self.incoming.running.remove(key)
        {
            self.effects.push_back(Effect::AbortRun(running.run));
        }
    }

    /// `WEBMCP_CALL_STATUS_REQUEST`: the outcome, "running" (and answers go to this asker from now on), or
    /// "unknown" with whether this page's journal survives reloads.
    pub(crate) fn on_status_request(&mut self, from: &Sender, request_id: RequestId) {
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        let durable = journals.provider.is_durable();
        let message = match journals.provider.on_status(from.origin.serialization(), &request_id, now) {
            StatusAnswer::Outcome(outcome) => {
                Message::ExecuteResponse(ExecuteResponse::from_outcome(request_id, outcome, &self.config.limits))
            }
            StatusAnswer::Running => {
                if let Some(running) = self.incoming.running.get_mut(&(from.origin.clone(), request_id.clone())) {
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

    /// `WEBMCP_CALL_ACK`: the caller has the outcomes; the journal may drop them.
    pub(crate) fn on_ack(&mut self, from: &Sender, request_ids: &[RequestId]) {
        let now = self.now;
        if let Some(journals) = self.journals.as_mut() {
            journals.provider.on_ack(from.origin.serialization(), request_ids, now);
            self.schedule_journal_flush();
        }
    }

    /// `WEBMCP_CONNECT`: a consumer offers a private port for its calls to this page. Accepted by window only, and
    /// only when its origin may see at least one tool; it replaces an earlier port of the same peer for that
    /// purpose, and never touches the port of this page's own calls to the peer.
    pub(crate) fn on_connect(
        &mut self,
        from: &Sender,
        request_id: RequestId,
        utf8_batches: bool,
        port: Option<PortId>,
    ) {
        let Some(port) = port else { return };
        if from.via != Via::Window || !self.any_visible(&from.origin) {
            self.effects.push_back(Effect::ClosePort(port));
            return self.refuse(
                RefusalKind::OriginNotAllowed,
                &from.origin,
                "a private port from an origin that sees no tool",
            );
        }
        let Some(peer) = self.peers.get_mut(from.peer) else {
            self.effects.push_back(Effect::ClosePort(port));
            return;
        };
        peer.bridge = true;
        let link = Link { utf8: utf8_batches, ..Link::new(port) };
        let old = peer.theirs.replace(link).map(|link| link.port);
        if let Some(old) = old {
            self.peers.drop_port(old);
            self.effects.push_back(Effect::ClosePort(old));
        }
        self.peers.note_port(port, from.peer, PortSide::Theirs);
        self.effects.push_back(Effect::AcceptPort(port));
        self.send(from.peer, &Message::Connected { request_id, utf8_batches: true });
    }
}
