//! Helpers shared by the session's table tests and its simulator: a page (a [`Session`] with the effects it queued
//! drained into a list), journals opened the way the bridge opens them, and short constructors for inputs.
#![allow(
    dead_code,
    clippy::expect_used,
    clippy::panic,
    reason = "each test file uses a part of the helpers; a failed expectation in a helper is a failed test"
)]

use std::cell::RefCell;
use std::rc::Rc;

use interpane_policy::envelope::Message;
use interpane_policy::journal::{JournalConfig, JournalStore, MemoryStore, Owner};
use interpane_policy::session::{
    Answer, CallRequest, CallTarget, Config, Effect, Entropy, EntropyError, Input, JournalsOpening, ListRequest,
    Locator, PeerId, PortId, Registration, ToolSpec, WaiterId, WindowId,
};

#[cfg(not(feature = "record"))]
pub use interpane_policy::session::Session as PageSession;
/// The session the tests drive: with the feature `record`, each one records what it receives, and the simulator
/// replays every page's tape ([`interpane_policy::session::tape`]).
#[cfg(feature = "record")]
pub use interpane_policy::session::tape::Recorder as PageSession;
use interpane_policy::{JsonText, Limits, OriginList, RequestId, StoreError, ToolName, TupleOrigin, WindowOrigin};

/// A fixed clock start (ms since the epoch).
pub const T0: u64 = 1_700_000_000_000;

/// Random bytes from a seeded xorshift: every page draws other ids, the same ones on every run.
pub struct Seeded(u64);

impl Seeded {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
}

impl Entropy for Seeded {
    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), EntropyError> {
        for byte in bytes {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            *byte = (self.0 >> 24) as u8;
        }
        Ok(())
    }
}

/// [`Seeded`] bytes while the switch is on; while it is off, every draw fails (after writing zeros, as a source that
/// fails halfway might leave them), as `crypto.getRandomValues` does when it throws.
pub struct Switched {
    pub on: Rc<std::cell::Cell<bool>>,
    pub bytes: Seeded,
}

impl Entropy for Switched {
    fn fill(&mut self, bytes: &mut [u8]) -> Result<(), EntropyError> {
        if self.on.get() {
            return self.bytes.fill(bytes);
        }
        bytes.fill(0);
        Err(EntropyError("crypto.getRandomValues threw OperationError: the test's source is off".to_owned()))
    }
}

/// A [`MemoryStore`] that outlives the page using it: the simulator's sessionStorage of one frame, which a reloaded
/// page opens again.
#[derive(Clone, Default)]
pub struct SharedStore(pub Rc<RefCell<MemoryStore>>);

impl SharedStore {
    pub fn durable() -> Self {
        Self(Rc::new(RefCell::new(MemoryStore::durable())))
    }
}

impl JournalStore for SharedStore {
    fn entries(&self, prefix: &str) -> Vec<(String, String)> {
        self.0.borrow().entries(prefix)
    }
    fn put(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        self.0.borrow_mut().put(key, value)
    }
    fn remove(&mut self, key: &str) {
        self.0.borrow_mut().remove(key);
    }
    fn is_durable(&self) -> bool {
        self.0.borrow().is_durable()
    }
}

/// One page: its session, its sessionStorage, and every effect it queued, in order.
pub struct Page {
    pub session: PageSession,
    /// What the session wrote when it queued [`Effect::WriteJournals`] (not durable: a page whose sessionStorage
    /// does not survive reloads, as the tests of one page need).
    pub store: MemoryStore,
    pub effects: Vec<Effect>,
    pub now: u64,
}

/// With the feature `record`, every page of a test replays its tape when the test is done with it: the same
/// answers, effects, deadlines and storage calls (interpane_policy::session::tape).
#[cfg(feature = "record")]
impl Drop for Page {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        if let Err(error) = interpane_policy::session::tape::replay(&self.session.tape_json()) {
            panic!("the page's replay differs from its recording: {error}");
        }
    }
}

impl Page {
    /// A page at `origin` exposing its tools to `expose` (an `expose-tools-to` list), journals not open yet.
    pub fn new(origin: &str, expose: &str) -> Self {
        Page::with_seed(origin, expose, 1)
    }

    /// Opens the journals over an empty store, as a page whose sessionStorage is empty, and ends that task;
    /// returns what that queued.
    pub fn open(&mut self) -> Vec<Effect> {
        let now = self.now;
        open_journals(&mut self.session, &mut self.store, "tab1", "top", now);
        let first = self.drain();
        self.finish_task(first)
    }

    pub fn with_seed(origin: &str, expose: &str, seed: u64) -> Self {
        Page::with_limits(origin, expose, seed, Limits::default())
    }

    /// A page with other message and flood limits.
    pub fn with_limits(origin: &str, expose: &str, seed: u64, limits: Limits) -> Self {
        let expose = OriginList::parse(expose).expect("a valid expose-tools-to list");
        let mut config = Config::new(WindowOrigin::from_browser(origin), expose);
        config.limits = limits;
        Page::with_config(config, Box::new(Seeded::new(seed)))
    }

    /// A page whose browser has native WebMCP: its tools are registered there too.
    pub fn native(origin: &str, expose: &str) -> Self {
        let expose = OriginList::parse(expose).expect("a valid expose-tools-to list");
        let mut config = Config::new(WindowOrigin::from_browser(origin), expose);
        config.native = true;
        Page::with_config(config, Box::new(Seeded::new(1)))
    }

    /// A page whose random bytes come from `entropy`.
    pub fn with_entropy(origin: &str, expose: &str, entropy: Box<dyn Entropy>) -> Self {
        let expose = OriginList::parse(expose).expect("a valid expose-tools-to list");
        Page::with_config(Config::new(WindowOrigin::from_browser(origin), expose), entropy)
    }

    fn with_config(config: Config, entropy: Box<dyn Entropy>) -> Self {
        Self { session: PageSession::new(config, entropy), store: MemoryStore::new(), effects: Vec::new(), now: T0 }
    }

    /// Takes what the session queued since the last call, keeping a copy in `effects`; writes the journals to
    /// the page's store where the session asked for it, as the driver does.
    pub fn drain(&mut self) -> Vec<Effect> {
        let mut out = Vec::new();
        while let Some(effect) = self.session.poll_effect() {
            if effect == Effect::WriteJournals {
                self.session.write_journals(&mut self.store, self.now);
            }
            out.push(effect);
        }
        self.effects.extend(out.iter().cloned());
        out
    }

    /// One input at the page's clock; what it queued.
    pub fn handle(&mut self, input: Input) -> Vec<Effect> {
        self.session.handle(input, self.now);
        self.drain()
    }

    /// One input, then the end of the task when the session asked for it (as the driver's microtask does), again
    /// until it stops asking; what all of that queued, without the requests for the end of the task.
    pub fn task(&mut self, input: Input) -> Vec<Effect> {
        let first = self.handle(input);
        self.finish_task(first)
    }

    fn finish_task(&mut self, mut pending: Vec<Effect>) -> Vec<Effect> {
        let mut out = Vec::new();
        loop {
            let asked = pending.contains(&Effect::EndOfTask);
            out.extend(pending.into_iter().filter(|e| *e != Effect::EndOfTask));
            if !asked {
                return out;
            }
            pending = self.handle(Input::EndOfTask);
        }
    }

    /// Moves the clock to `at` and runs the timers due then (ending the task they start); what that queued.
    pub fn advance_to(&mut self, at: u64) -> Vec<Effect> {
        self.now = self.now.max(at);
        self.session.handle_timeout(self.now);
        let first = self.drain();
        self.finish_task(first)
    }

    /// Registers a tool, then ends the task; what that queued.
    pub fn register(&mut self, spec: ToolSpec) -> (Registration, Vec<Effect>) {
        let registration = register(&mut self.session, spec, self.now);
        let first = self.drain();
        (registration, self.finish_task(first))
    }

    /// Unregisters the tool `name` (only `registration` of it, when given); the registration removed.
    pub fn unregister(&mut self, name: &str, registration: Option<Registration>) -> Option<Registration> {
        let input = Input::Unregister { name: name.to_owned(), registration };
        match self.session.handle(input, self.now) {
            Answer::Unregistered(removed) => removed,
            other => panic!("Input::Unregister answered {other:?}"),
        }
    }

    /// A new port that came with a message.
    pub fn port(&mut self) -> PortId {
        match self.session.handle(Input::NewPort, self.now) {
            Answer::Port(port) => port,
            other => panic!("Input::NewPort answered {other:?}"),
        }
    }

    /// The peer of `window`'s tools at `origin` on native's path.
    pub fn native_peer(&mut self, window: WindowId, origin: &str) -> PeerId {
        match self.session.handle(Input::NativePeer { window, origin: WindowOrigin::from_browser(origin) }, self.now) {
            Answer::Peer(peer) => peer,
            other => panic!("Input::NativePeer answered {other:?}"),
        }
    }
}

/// Registers a tool of `session`'s page (a new name) at `now`.
pub fn register(session: &mut PageSession, spec: ToolSpec, now: u64) -> Registration {
    match session.handle(Input::Register { spec: Box::new(spec) }, now) {
        Answer::Registered(registration) => registration.expect("a new tool name"),
        other => panic!("Input::Register answered {other:?}"),
    }
}

/// Opens both journals of a session the way the bridge does, for frame `slot` of tab `tab`, over `store` (the
/// page's sessionStorage).
pub fn open_journals(session: &mut PageSession, store: &mut dyn JournalStore, tab: &str, slot: &str, now: u64) {
    open_journals_with(session, store, (tab, slot), Vec::new(), JournalSetup::default(), now);
}

/// How the simulated driver opens a page's journals.
#[derive(Debug, Clone, Copy, Default)]
pub struct JournalSetup {
    /// The previous page of this frame did not go away cleanly: a durable store must still hold the alive key the
    /// session wrote when that page's journals opened (and removes when a page goes away), else must not.
    pub crashed: bool,
}

/// Opens both journals for frame `owner.1` of tab `owner.0` over `store`, with the windows `around` the page, as
/// the driver does.
pub fn open_journals_with(
    session: &mut PageSession,
    store: &mut dyn JournalStore,
    owner: (&str, &str),
    around: Vec<(WindowId, Locator)>,
    setup: JournalSetup,
    now: u64,
) {
    let (tab, slot) = owner;
    if store.is_durable() {
        let marker = store.get(&format!("webmcp:alive:{tab}:{slot}"));
        assert_eq!(marker.is_some(), setup.crashed, "the alive key of {tab}:{slot} (crashed: {})", setup.crashed);
    }
    let opening = JournalsOpening {
        owner: Owner::new(tab, slot).expect("a valid owner"),
        label: format!("label-{tab}"),
        config: JournalConfig::default(),
        around,
    };
    session.open_journals(store, opening, now);
}

pub fn name(text: &str) -> ToolName {
    ToolName::new(text).expect("a valid tool name")
}

pub fn rid(text: &str) -> RequestId {
    RequestId::new(text).expect("a valid request id")
}

pub fn json(text: &str) -> JsonText {
    JsonText::parse(text, &Limits::default()).expect("valid JSON")
}

/// A tool without schema, visible per the page's list.
pub fn tool(tool_name: &str) -> ToolSpec {
    ToolSpec::new(name(tool_name), format!("The {tool_name} tool."))
}

/// A tool with its own `exposedTo`.
pub fn tool_exposed_to(tool_name: &str, exposed_to: &str) -> ToolSpec {
    let mut spec = tool(tool_name);
    spec.exposed_to = Some(OriginList::parse(exposed_to).expect("a valid list"));
    spec
}

/// The origin the browser reports as `text`.
pub fn origin(text: &str) -> WindowOrigin {
    WindowOrigin::from_browser(text)
}

/// The tuple origin the browser reports as `text`, which a post can be addressed to.
pub fn tuple(text: &str) -> TupleOrigin {
    TupleOrigin::from_browser(text).expect("a tuple origin")
}

/// A window message of `message` from `window` at `origin`.
pub fn from_window(window: u32, origin: &str, message: &Message) -> Input {
    let origin = WindowOrigin::from_browser(origin);
    Input::WindowMessage { window: WindowId(window), origin, text: message.encode(), port: None }
}

/// A window message with a port transferred.
pub fn with_port(window: u32, origin: &str, message: &Message, port: PortId) -> Input {
    Input::WindowMessage {
        window: WindowId(window),
        origin: WindowOrigin::from_browser(origin),
        text: message.encode(),
        port: Some(port),
    }
}

/// `getTools` asking `windows` (with their locators), allowing `from_origins`.
pub fn list(waiter: u64, from_origins: &str, windows: &[(u32, Locator)]) -> Input {
    Input::ListTools(ListRequest {
        waiter: WaiterId(waiter),
        from_origins: OriginList::parse(from_origins).expect("a valid list"),
        windows: windows.iter().map(|(w, l)| (WindowId(*w), l.clone())).collect(),
        origin_hints: Vec::new(),
        timeout_ms: None,
    })
}

/// `executeTool` of `tool_name` on `peer`.
pub fn execute(waiter: u64, peer: PeerId, tool_name: &str, args: &str, timeout_ms: Option<u32>) -> Input {
    Input::Execute(CallRequest {
        waiter: WaiterId(waiter),
        target: CallTarget::Listed(peer),
        tool: name(tool_name),
        args: Some(args.to_owned()),
        call_id: None,
        timeout_ms,
    })
}

/// The envelopes of a port batch.
pub fn batch_messages(batch: &str) -> Vec<Message> {
    interpane_policy::envelope::decode_batch(batch, &Limits::default())
        .expect("a batch the session wrote reads back")
        .into_iter()
        .filter_map(|item| match item {
            Ok(interpane_policy::envelope::Decoded::Message(m)) => Some(m),
            _ => None,
        })
        .collect()
}
