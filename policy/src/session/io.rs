//! What goes into a [`Session`](crate::session::Session) and what comes out.

use crate::JsonText;
use crate::call_args::CallArgsError;
use crate::calls_channel::ObservedCall;
use crate::envelope::{ErrorCategory, Message, ToolDescriptor};
use crate::ids::{RequestId, ToolName};
use crate::journal::CallOutcome;
use crate::origin::{OriginList, TupleOrigin, WindowOrigin};
use crate::outcome::ToolError;
use crate::schema::ArgSchema;
use crate::session::ids::{FormId, Locator, PeerId, PortId, Registration, RunId, WaiterId, WindowId};

/// An event for the session: something a window, a port, a timer, the page or a tool did.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug)]
pub enum Input {
    /// A `message` event whose data looked like ours (an object whose `type` starts with `WEBMCP_`), already within
    /// the size limit: the source window, the origin the browser reported, the data as JSON text, and the port
    /// transferred with it (named by [`Input::NewPort`]).
    WindowMessage {
        /// The `event.source` window.
        window: WindowId,
        /// `event.origin`.
        origin: WindowOrigin,
        /// `JSON.stringify(event.data)`.
        text: String,
        /// `event.ports[0]`.
        port: Option<PortId>,
    },
    /// A window message the driver did not read: over the size limit (measured without serializing it), or not
    /// JSON.
    UnreadMessage {
        /// `event.origin`.
        origin: WindowOrigin,
        /// Why.
        category: ErrorCategory,
    },
    /// A batch (a JSON array of envelopes, as text) on one of the private ports.
    PortBatch {
        /// The port.
        port: PortId,
        /// The batch, already within the size limit.
        text: String,
    },
    /// A batch over the size limit on one of the private ports, not read.
    OversizedBatch(PortId),
    /// A message on one of the private ports that is no batch: neither a string nor UTF-8 bytes.
    UnreadableBatch(PortId),
    /// The page asks for the tools of the windows around it.
    ListTools(ListRequest),
    /// The page calls a tool.
    Execute(CallRequest),
    /// Native WebMCP calls one of this page's tools (the browser's agent, or a frame that reaches the page only
    /// through native): decided as a call of the page's own (see [`FromNative`]).
    FromNative(FromNative),
    /// The caller behind `waiter` stopped its call (its signal aborted): the call stops, for every waiter.
    Stop(WaiterId),
    /// Nobody will read what `waiter` is settled with (its future was dropped): the call stops when no other
    /// waiter is left.
    Abandon(WaiterId),
    /// One of this page's tools finished a run.
    ToolSettled {
        /// The run.
        run: RunId,
        /// How it ended.
        result: RunResult,
    },
    /// The frame element of a window that the session watches (see [`Effect::WatchFrame`]) loaded a new document.
    FrameLoaded(WindowId),
    /// The answer to [`Effect::ProbeWindows`]: those of the windows that have closed.
    WindowsClosed(Vec<WindowId>),
    /// The microtask that [`Effect::EndOfTask`] asked for.
    EndOfTask,
    /// The page was hidden or frozen: what the journals hold should reach storage now.
    Hidden,
    /// The page is going away (`pagehide`). What it means for the calls this page waits on depends on the last
    /// [`Input::Navigating`]: a page that leaves stops them; one that reloads, or whose departure nobody
    /// announced, leaves them to the next page of its frame (docs/once-only.md §2).
    GoingAway,
    /// The page's document started a navigation to another document, or one it started did not replace it after
    /// all (the Navigation API's `navigate`, `navigatesuccess` and `navigateerror` events; the page came back from
    /// the back/forward cache).
    Navigating(Departure),
    /// A message on the calls channel, the `BroadcastChannel` of this origin's pages (its data as JSON text): how
    /// another page's calls stand, or the handshake by which pages learn that another one listens. Until one does,
    /// the session announces nothing: a `BroadcastChannel` message costs about as much as the call's own port
    /// message, and most pages have no same-origin page to tell ([`crate::calls_channel`]).
    CallsChannel(String),
    /// A call on native's path ([`Effect::CallNative`]) ended: its result (JSON text, as native gives it), or the
    /// error native rejected with.
    NativeSettled {
        /// The call.
        wire_id: RequestId,
        /// How it ended.
        result: Result<JsonText, ToolError>,
    },
    /// The driver named a window it had not shown the session before ([`WindowId`]), with what it sees of it.
    WindowSeen {
        /// The window's id.
        window: WindowId,
        /// Where it sits around this page.
        facts: WindowFacts,
    },
    /// The page registers a tool: [`Answer::Registered`]. The windows that listed the page's tools are told and
    /// `toolchange` fires. With native WebMCP it is registered there too.
    Register {
        /// What the tool is (boxed: the largest input by far).
        spec: Box<ToolSpec>,
    },
    /// The page unregisters the tool `name` (only `registration` of it, when given), from native too:
    /// [`Answer::Unregistered`]. The windows that listed the page's tools are told and `toolchange` fires.
    Unregister {
        /// The tool's name.
        name: String,
        /// Only this registration of it.
        registration: Option<Registration>,
    },
    /// A declarative form (`<form toolname>`) appeared, changed or left the page, as the driver's form watcher
    /// reported it. The session decides what becomes a tool: a valid name, a description, a schema within the
    /// page's limits that the argument check compiles, a name no other tool holds (the first form found keeps a name
    /// two forms want; the next one waiting takes it over when it goes). It registers and unregisters the form's tool
    /// as [`Input::Register`] and [`Input::Unregister`] do, tells the driver which registration runs which form
    /// ([`Effect::FormTool`]), warns why a form is not a tool, and announces each change once.
    Form {
        /// The form.
        form: FormId,
        /// What the form describes now (it appeared, or its name, description or schema changed), or `None`: it
        /// left the page or lost its `toolname`.
        definition: Option<FormDefinition>,
    },
    /// A port came with a message: [`Answer::Port`] names it, and the message's input carries that name.
    NewPort,
    /// The page lists `window`'s tools at `origin` on native's path: [`Answer::Peer`] is the peer that stands for
    /// them (made when new).
    NativePeer {
        /// The window.
        window: WindowId,
        /// Its origin (the native tool's `origin`).
        origin: WindowOrigin,
    },
    /// A warning about this page itself (its tools, its storage, native's refusals), printed through the session's
    /// rate-limited gate like every other.
    WarnOwn {
        /// What kind of problem, for the gate.
        kind: crate::guard::RefusalKind,
        /// The text.
        text: String,
    },
    /// A `postMessage` the driver made for [`Effect::Post`] threw.
    PostFailed {
        /// The origin it was addressed to.
        origin: TupleOrigin,
        /// What the browser said.
        error: String,
    },
}

/// What the page's document is about to do, as far as the page can tell ([`Input::Navigating`]).
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Departure {
    /// No navigation of the document is under way, or the page cannot tell: a browser without the Navigation API,
    /// a navigation that a page of another origin starts (no `navigate` event in this page), maybe one the browser's
    /// own interface starts. Going away is taken as a reload then.
    #[default]
    Stays,
    /// It reloads (`navigationType` `reload`): the next page of its frame resumes its calls.
    Reloads,
    /// It navigates to another document (`push`, `replace`, `traverse`): its calls stop when it goes.
    Leaves,
    /// A navigation may be starting, and the page cannot tell where to (`beforeunload`, in a browser without the
    /// Navigation API): going away is taken as a reload, as with [`Departure::Stays`], but an error a tool throws
    /// meanwhile may be the navigation's doing (WebKit cancels the page's loads when a navigation starts, while its
    /// scripts still run), so it is held as for a known departure ([`HELD_ERROR_MS`](crate::session::HELD_ERROR_MS)).
    Unsure,
}

/// A declarative form's tool definition, as the driver read it from the page (`js/forms/tool.js` `formTool`).
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormDefinition {
    /// Its `toolname` as written (valid or not).
    pub name: String,
    /// Its `tooldescription`, if it has one.
    pub description: Option<String>,
    /// The JSON text of the schema the form makes (its `inputSchema`), or why the driver could not read the
    /// definition (the schema cannot be written as JSON, its `execute` is not a function).
    pub input_schema: Result<String, String>,
}

/// A `getTools` of the page.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug)]
pub struct ListRequest {
    /// Who waits for the list.
    pub waiter: WaiterId,
    /// Which other origins' tools the list may hold (besides this page's origin).
    pub from_origins: OriginList,
    /// The windows to ask, with where they sit: the driver's view of the windows around the page, and any the
    /// page passed in.
    pub windows: Vec<(WindowId, Locator)>,
    /// Origins those windows are likely to have (to address requests when `from_origins` has wildcards); opaque
    /// ones are left out.
    pub origin_hints: Vec<WindowOrigin>,
    /// How long to wait for windows that have not answered (ms); the session's default when `None`.
    pub timeout_ms: Option<u32>,
}

/// An `executeTool` of the page.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug)]
pub struct CallRequest {
    /// Who waits for the outcome.
    pub waiter: WaiterId,
    /// Whose tool it is.
    pub target: CallTarget,
    /// The tool.
    pub tool: ToolName,
    /// The arguments as the caller gave them, as JSON text (`None`: left out, which means `{}`). What they must be
    /// is the session's to decide ([`crate::call_args`], the page's limits): arguments that break the rules refuse
    /// the call with [`Effect::RefuseCall`].
    pub args: Option<String>,
    /// The caller's `callId`.
    pub call_id: Option<String>,
    /// The call's time limit (ms).
    pub timeout_ms: Option<u32>,
}

/// The tool object a call names, as the driver read it.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallTarget {
    /// A tool the page listed (`getTools` named its peer), or the page's own ([`PeerId::SELF`]).
    Listed(PeerId),
    /// Another object with the tool's `origin` and `window` (a copy of a listed tool, say): the page's own tool
    /// when the window is the page's own (`own_window`, which only the driver can see), the origin is the page's and
    /// a tool of that name is registered here, as native takes a copy of its own tool object; else refused.
    Copy {
        /// The object's `origin`.
        origin: WindowOrigin,
        /// Its `window` is this page's window.
        own_window: bool,
    },
}

/// Why a call the page made was refused before it started ([`Effect::RefuseCall`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CallRefusal {
    /// Its arguments break the rules.
    #[error(transparent)]
    Arguments(#[from] CallArgsError),
    /// Its tool object is not a tool the page listed nor one of the page's own.
    #[error("{tool} of {origin} is not a tool this page listed; pass a tool returned by getTools()")]
    NotListed {
        /// The tool's name.
        tool: String,
        /// The origin the object gave.
        origin: String,
    },
    /// Its tool object names this page's window and origin, but no tool of this page has its name (as native,
    /// whose registry has no such tool: the JavaScript API rejects with a `DOMException` `UnknownError`).
    #[error("this page has no tool {tool}")]
    NoSuchTool {
        /// The tool's name.
        tool: String,
    },
    /// Its time limit is 0 ([`crate::limits::time_limit_ms`] is the rule every API applies).
    #[error(transparent)]
    TimeLimit(#[from] crate::limits::TimeLimitError),
}

impl CallRefusal {
    /// What a JavaScript caller's promise rejects with, as native's `executeTool` rejects for the same mistake: a
    /// `TypeError` for a tool object or arguments it cannot take, a `DOMException` `UnknownError` for a tool of this
    /// page that its registry does not have.
    pub fn thrown_as(&self) -> ThrownAs {
        match self {
            Self::NoSuchTool { .. } => ThrownAs::UnknownError,
            Self::NotListed { .. } => ThrownAs::TypeErrorOfToolObject,
            Self::Arguments(_) | Self::TimeLimit(_) => ThrownAs::TypeError,
        }
    }
}

/// The JavaScript error a refused call rejects with ([`CallRefusal::thrown_as`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThrownAs {
    /// A `TypeError` about the call (`executeTool: ...`).
    TypeError,
    /// A `TypeError` about the tool object given (`executeTool(tool, args): ...`).
    TypeErrorOfToolObject,
    /// A `DOMException` named `UnknownError`.
    UnknownError,
}

/// A call of one of this page's tools that native WebMCP made: native called the `execute` the bridge registered
/// with it ([`Effect::ToNative`]).
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug)]
pub struct FromNative {
    /// Who settles native's promise (and whose abort is native's caller's abort).
    pub waiter: WaiterId,
    /// The registration native was given: a tool registered later under the same name is not this one.
    pub registration: Registration,
    /// The name native was given with it, for the page's `toolresult` when the registration is gone.
    pub name: String,
    /// The input native passed, as JSON text (`None`: none was passed, which means `{}`); not yet checked.
    pub args: Option<String>,
}

/// How a run of a tool of this page ended, as the driver read it.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug)]
pub enum RunResult {
    /// It returned this value, as JSON text (not yet checked against the limits).
    Returned(String),
    /// Its value cannot be sent (it cannot be written as JSON): why.
    Unsendable(String),
    /// It threw (or rejected) this error.
    Threw(ToolError),
}

/// A tool this page registers.
#[derive(Debug)]
pub struct ToolSpec {
    /// Its name.
    pub name: ToolName,
    /// What it does.
    pub description: String,
    /// Its arguments' schema, as sent to other windows.
    pub input_schema: Option<JsonText>,
    /// Its annotations.
    pub annotations: Option<JsonText>,
    /// Checks arguments before the tool runs; `None` when it has no schema or opted out.
    pub checker: Option<ArgSchema>,
    /// Its own `exposedTo`; without one the page's `expose-tools-to` applies.
    pub exposed_to: Option<OriginList>,
    /// Register it with the browser's native WebMCP too (where the page has it).
    pub to_native: bool,
}

/// A tool as a listing returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTool {
    /// What the provider said of it.
    pub descriptor: ToolDescriptor,
    /// The origin of the window it runs in, as the browser reported it.
    pub origin: WindowOrigin,
    /// The peer to call it through.
    pub peer: PeerId,
    /// The window it runs in.
    pub window: WindowId,
}

/// How a call of this page ended, for the `toolresult` event.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// The caller's `callId`, or the id the bridge made.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The origin of the window that ran it.
    pub origin: WindowOrigin,
    /// How it ended.
    pub outcome: CallOutcome,
    /// Milliseconds from the call's start to its end.
    pub duration_ms: u64,
    /// It settled in a later page than the one that started it.
    pub recovered: bool,
}

/// What [`Session::handle`](crate::session::Session::handle) answers at once. Most inputs are answered by the
/// effects they queue; the page's own requests that need a name or a verdict on the spot are answered here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The input's outcome is in the effects.
    Queued,
    /// [`Input::Register`]: the new registration, or why the tool was refused.
    Registered(Result<Registration, crate::session::RegisterError>),
    /// [`Input::Unregister`]: the registration removed, if one was.
    Unregistered(Option<Registration>),
    /// [`Input::NewPort`]: the port's name.
    Port(PortId),
    /// [`Input::NativePeer`]: the peer.
    Peer(PeerId),
    /// [`Input::WindowMessage`]: whether the message was this page's bridge's to read (a request or notice of the
    /// protocol, malformed or not, or a response it waits for), which the driver hides from the page's own
    /// listeners; a response to a request the page's own script made by hand is not, and reaches them.
    Heard {
        /// The message was the bridge's.
        ours: bool,
    },
}

/// Something the session wants done: a browser call, a promise settled, an event fired.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Refuse a call the page made ([`Input::Execute`]) before it starts: its tool object names no tool, or its
    /// arguments break the rules. It fires no `toolresult`: the page made the call and sees it refused (the
    /// JavaScript API rejects with a `TypeError`, the Rust API with `CallError::Arguments` for arguments).
    RefuseCall {
        /// Who waits for the call.
        waiter: WaiterId,
        /// Why it was refused.
        error: CallRefusal,
    },
    /// Write the journals' changes to storage now: hand [`Session::write_journals`](crate::session::Session::write_journals)
    /// the page's store before carrying out the next effect. The effects after this one may depend on what it
    /// writes (a request to a plain peer leaves only once it is recorded as sent).
    WriteJournals,
    /// Post `message` to `window`, addressed to exactly `origin`. With `open_port`, make a `MessageChannel`, keep
    /// one end as `open_port` (listening on it), and transfer the other with the message.
    Post {
        /// The window.
        window: WindowId,
        /// Its exact origin: a tuple origin, never `*` nor opaque.
        origin: TupleOrigin,
        /// The envelope.
        message: Message,
        /// A new private port to set up with this message.
        open_port: Option<PortId>,
    },
    /// Post `batch` (a JSON array of envelopes) on a private port: as a string, or as its UTF-8 bytes when
    /// `utf8` says the other end reads those (a string is always read).
    PostBatch {
        /// The port.
        port: PortId,
        /// The batch.
        batch: String,
        /// The bridge at the other end said it reads batches posted as UTF-8 bytes (`"utf8Batches": 1`).
        utf8: bool,
    },
    /// Keep the port that came with a message and listen on it.
    AcceptPort(PortId),
    /// Close a port and forget it.
    ClosePort(PortId),
    /// Post `message` to every window around this page (see [`ListRequest::windows`]), once per origin of
    /// `origins`.
    PostAround {
        /// The envelope.
        message: Message,
        /// The exact origins to address it to (tuple origins, never `*` nor opaque).
        origins: Vec<TupleOrigin>,
    },
    /// Run a tool of this page.
    RunTool {
        /// The run, for [`Input::ToolSettled`].
        run: RunId,
        /// Which tool.
        registration: Registration,
        /// Its arguments (a JSON object).
        args: JsonText,
    },
    /// Abort a run's signal.
    AbortRun(RunId),
    /// Call `tool` of a native peer through the browser's `document.modelContext.executeTool`, and give the end as
    /// [`Input::NativeSettled`].
    CallNative {
        /// The peer (a window whose tools native reaches).
        peer: PeerId,
        /// The call's id, for [`Input::NativeSettled`].
        wire_id: RequestId,
        /// The tool.
        tool: ToolName,
        /// The arguments.
        args: JsonText,
    },
    /// Abort the signal of a call on native's path (native tells the tool with `toolcancel`).
    AbortNative(RequestId),
    /// Settle a caller's promise or future.
    Settle {
        /// Who.
        waiter: WaiterId,
        /// How the call ended.
        outcome: CallOutcome,
    },
    /// Resolve a `getTools`.
    Listed {
        /// Who.
        waiter: WaiterId,
        /// The tools.
        tools: Vec<ListedTool>,
    },
    /// Fire `toolchange`.
    ToolChange,
    /// Fire `toolresult`.
    ToolResult(Finished),
    /// Fire `toolstatus`.
    ToolStatus(ObservedCall),
    /// Post this message (JSON text, from [`crate::calls_channel`]) on the calls channel: this page's call
    /// statuses, or the handshake's hello or answer.
    PostCalls(String),
    /// Tell the session (with [`Input::FrameLoaded`]) when the frame element of `window`, a frame of this page,
    /// loads another document.
    WatchFrame(WindowId),
    /// Say (with [`Input::WindowsClosed`], at once) which of these windows have closed.
    ProbeWindows(Vec<WindowId>),
    /// Register a tool with the browser's native WebMCP, exposed to these exact origins.
    ToNative {
        /// Which tool.
        registration: Registration,
        /// Its name, description, schema and annotations.
        descriptor: ToolDescriptor,
        /// Its `exposedTo` for native.
        exposed_to: Vec<String>,
    },
    /// Remove a tool from native WebMCP (abort the signal it was registered with).
    UnregisterFromNative(Registration),
    /// `form`'s tool is now `registration`, run by the form's definition as the driver last reported it (its
    /// `execute`, with the definition as `this`); `None`: the form has no tool any more. Either way a tool the form
    /// had before is gone. It comes before the new registration's [`Effect::ToNative`], which registers a form's
    /// tool with native in place of native's own tool for the form.
    FormTool {
        /// The form.
        form: FormId,
        /// Its tool's registration, if it has one.
        registration: Option<Registration>,
    },
    /// Print a console warning.
    Warn(String),
    /// Queue a microtask that gives [`Input::EndOfTask`].
    EndOfTask,
    /// The journals are open and what waited for them ran: the bridge is ready.
    Ready,
}

/// What the driver knows about a window when it first sees it.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowFacts {
    /// Where it sits around this page.
    pub locator: Locator,
    /// It is this page's parent, the parent's parent, ... or the top window.
    pub ancestor: bool,
}

/// A request this page sent and waits for an answer to, with who may answer it.
#[derive(Debug, Clone)]
pub(crate) struct Asked {
    pub listing: u32,
    pub window: WindowId,
    pub origin: TupleOrigin,
}
