//! The driver: the page's one [`Session`] (policy's protocol state machine) bound to the browser. Listeners turn
//! browser events into session inputs (events.rs); the session's effects become `postMessage` calls, port batches,
//! tool runs, promise settlements and events (effects.rs); the browser objects live in [`Handles`] under the
//! session's ids. Nothing here decides what the protocol does.
//!
//! Re-entrancy cannot break it: no borrow of the driver's state is held across a call into JavaScript, since any
//! such call may run page code that calls the bridge back (a tool, an event listener, a built-in the page replaced).
//! Effects are carried out after the session's borrow ends, one at a time, so page code they call may call back:
//! its input is handled at once and its effects join the queue being drained. Page code that runs while the session
//! itself is borrowed (the session's own work called a built-in the page replaced: `RegExp`, `Storage`, `crypto`)
//! finds it busy: its inputs wait in the inbox, which the pump drains before the next effect.

mod effects;
mod events;
mod handles;

use std::cell::{Cell, RefCell};
use std::mem::ManuallyDrop;
use std::rc::{Rc, Weak};

use gloo_events::EventListener;
use gloo_timers::callback::Timeout;
use interpane_policy::WindowOrigin;
use interpane_policy::guard::RefusalKind;
use interpane_policy::journal::{JournalConfig, Owner};
use interpane_policy::session::{
    Answer, Config, Input, JournalsOpening, Locator, PeerId, PortId, Registration, ToolSpec, WaiterId, WindowId,
};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

pub(crate) use handles::{Handler, Handles, JsResult, ToolHandle, Waiter, windows_around};

use crate::BridgeError;
use crate::listeners::Listeners;
use crate::options::Options;
use crate::random::CryptoEntropy;
use crate::store::RawStore;

/// The session as the driver keeps it: recording what it receives in a build with the feature `record`.
#[cfg(feature = "record")]
type PageSession = interpane_policy::session::tape::Recorder;
#[cfg(not(feature = "record"))]
type PageSession = interpane_policy::session::Session;

/// The BroadcastChannel on which the pages of this origin announce how their calls go (observe.rs).
const CALLS_CHANNEL: &str = "interpane:calls";

/// The page's bridge: the session, the browser objects, and the listeners that feed it.
pub(crate) struct Driver {
    session: RefCell<PageSession>,
    /// Inputs that arrived while the session was borrowed (see the module's documentation), in order. Each is
    /// handed to the session, never dropped here (no drop code for inputs in the wasm).
    inbox: RefCell<Vec<ManuallyDrop<Input>>>,
    /// The journals' storage (sessionStorage, or memory), once tab.rs has opened them: the session writes to it
    /// only when the driver carries out `Effect::WriteJournals`.
    storage: RefCell<Option<RawStore>>,
    pub handles: RefCell<Handles>,
    /// The `document.modelContext`-shaped object (an EventTarget) that events are fired on.
    pub context: RefCell<JsValue>,
    /// Rust listeners of `toolresult`, `toolstatus` and `toolchange` (shared with their guards).
    pub listeners: Rc<RefCell<Listeners>>,
    pub options: Options,
    pumping: Cell<bool>,
    /// The browser timer for the session's next deadline, and that deadline.
    timer: RefCell<Option<(u64, Timeout)>>,
    end_of_task: Closure<dyn FnMut()>,
    _tool_settler: Closure<dyn FnMut(u32, bool, JsValue)>,
    _calls_channel: Closure<dyn FnMut(JsValue)>,
    _listeners: RefCell<Vec<EventListener>>,
    /// The driver itself, for the listeners and tasks it starts: each holds this weak reference, never a global,
    /// so that what a closure can reach is the driver that made it.
    me: Weak<Driver>,
}

thread_local! {
    /// The page's one bridge, for the entry points of page code (the JavaScript and Rust APIs, `install()` again):
    /// a page has one bridge however many times it imports or installs it. The driver's own listeners and tasks
    /// do not read it (see `Driver::me`).
    static DRIVER: RefCell<Option<Rc<Driver>>> = const { RefCell::new(None) };
}

/// Runs `work` with the driver behind `driver`, if it is still there.
pub(crate) fn upgrade(driver: &Weak<Driver>, work: impl FnOnce(&Rc<Driver>)) {
    if let Some(driver) = driver.upgrade() {
        work(&driver);
    }
}

/// Milliseconds since the epoch.
pub(crate) fn now() -> u64 {
    js_sys::Date::now() as u64
}

impl Driver {
    pub fn installed() -> Option<Rc<Driver>> {
        DRIVER.with(|driver| driver.borrow().clone())
    }

    /// The tape of the page's session so far (a build with the feature `record`).
    #[cfg(feature = "record")]
    pub fn tape_json(&self) -> String {
        self.session.try_borrow().map(|session| session.tape_json()).unwrap_or_default()
    }

    /// Installs the page's driver (or returns the one installed). `native`: the page has the browser's own WebMCP;
    /// `entropy`: the page's random numbers, which gave the tab's new ids already.
    pub fn install(options: Options, native: bool, entropy: CryptoEntropy) -> Result<Rc<Driver>, BridgeError> {
        if let Some(driver) = Self::installed() {
            return Ok(driver);
        }
        let window = web_sys::window().ok_or(BridgeError::Unsupported("window"))?;
        let own_origin = WindowOrigin::from_browser(&window.origin());
        let mut config = Config::new(own_origin, options.expose_tools_to.clone());
        config.limits = options.limits.clone();
        config.discovery_timeout_ms = options.discovery_timeout_ms;
        config.toolchange_debounce_ms = options.toolchange_debounce_ms;
        config.flush_delay_ms = options.flush_delay_ms;
        config.native = native;
        let driver = Rc::new_cyclic(|me: &Weak<Driver>| {
            let driver = me.clone();
            let end_of_task = Closure::<dyn FnMut()>::new(move || upgrade(&driver, |d| d.input(Input::EndOfTask)));
            let driver = me.clone();
            let tool_settler = Closure::<dyn FnMut(u32, bool, JsValue)>::new(move |run, ok, value| {
                upgrade(&driver, |d| events::on_tool_settled(d, run, ok, &value))
            });
            // Every message on the calls channel goes to the session as JSON text (a value JSON cannot write is
            // none of the channel's): what it is and what to do about it is decided there.
            let driver = me.clone();
            let calls_channel = Closure::<dyn FnMut(JsValue)>::new(move |data: JsValue| {
                let text = js_sys::JSON::stringify(&data).ok().and_then(|text| crate::text_in::string(&text));
                if let Some(text) = text {
                    upgrade(&driver, |d| d.input(Input::CallsChannel(text)));
                }
            });
            Driver {
                session: RefCell::new(PageSession::new(config, Box::new(entropy))),
                inbox: RefCell::new(Vec::new()),
                storage: RefCell::new(None),
                handles: RefCell::new(Handles::new(window.clone().into())),
                context: RefCell::new(JsValue::UNDEFINED),
                listeners: Rc::new(RefCell::new(Listeners::default())),
                options,
                pumping: Cell::new(false),
                timer: RefCell::new(None),
                end_of_task,
                _tool_settler: tool_settler,
                _calls_channel: calls_channel,
                _listeners: RefCell::new(Vec::new()),
                me: me.clone(),
            }
        });
        crate::js::set_tool_settler(driver._tool_settler.as_ref().unchecked_ref());
        crate::js::watch_calls(CALLS_CHANNEL, driver._calls_channel.as_ref().unchecked_ref());
        DRIVER.with(|slot| *slot.borrow_mut() = Some(driver.clone()));
        *driver._listeners.borrow_mut() = events::listen(&window, &driver.me);
        Ok(driver)
    }

    /// A weak reference to this driver, for what outlives a call into it (a listener, a task, a JS object).
    pub fn weak(&self) -> Weak<Driver> {
        self.me.clone()
    }

    /// Hands the session one input, then carries out what it decided.
    pub fn input(&self, input: Input) {
        self.handle(input);
        self.pump();
    }

    /// Hands the session `input`, or queues the input in the inbox while the session is borrowed (`None` then: the
    /// pump hands it over later). Whether the session's answer says yes: a tool was unregistered, a window message
    /// was the bridge's. The handle of a tool the session unregistered is dropped here, after the borrow of the
    /// handles (dropping it removes its abort listener).
    fn handle(&self, input: Input) -> Option<bool> {
        let answer = match self.session.try_borrow_mut() {
            Ok(mut session) => session.handle(input, now()),
            Err(_) => {
                self.inbox.borrow_mut().push(ManuallyDrop::new(input));
                return None;
            }
        };
        if let Answer::Unregistered(Some(removed)) = answer {
            let handle = self.handles.borrow_mut().tools.remove(&removed);
            drop(handle);
            return Some(true);
        }
        Some(!matches!(answer, Answer::Heard { ours: false } | Answer::Unregistered(None)))
    }

    /// The first input of the inbox, taken out.
    fn next_queued(&self) -> Option<Input> {
        let mut inbox = self.inbox.borrow_mut();
        (!inbox.is_empty()).then(|| ManuallyDrop::into_inner(inbox.remove(0)))
    }

    /// Carries out the session's effects until none is left (a call from inside one only queues its own), handing
    /// the session the inputs of the inbox first, then sets the browser timer for the next deadline. Not while the
    /// session is borrowed: the code that borrowed it pumps once it is done.
    fn pump(&self) {
        if self.session.try_borrow_mut().is_err() || self.pumping.replace(true) {
            return;
        }
        loop {
            let queued = self.next_queued();
            if let Some(input) = queued {
                self.handle(input);
                continue;
            }
            // Nothing else borrows the session between two effects.
            let effect = self.session.borrow_mut().poll_effect();
            let Some(effect) = effect else { break };
            self.carry_out(effect);
        }
        self.pumping.set(false);
        self.arm_timer();
    }

    /// Writes the journals' changes to the page's storage (`Effect::WriteJournals`; the pump's, so the session is
    /// free; page code that writing calls finds it busy, and nothing else borrows the storage).
    fn write_journals(&self) {
        let mut storage = self.storage.borrow_mut();
        if let Some(storage) = storage.as_mut() {
            self.session.borrow_mut().write_journals(storage, now());
        }
    }

    /// Sets the browser timer for the session's next deadline (the pump's, so the session is free).
    fn arm_timer(&self) {
        let next = self.session.borrow().poll_timeout();
        if self.timer.borrow().as_ref().map(|(at, _)| *at) == next {
            return;
        }
        let timer = next.map(|at| {
            let delay = at.saturating_sub(now()).min(u64::from(u32::MAX)) as u32;
            let driver = self.me.clone();
            let timeout = Timeout::new(delay, move || {
                upgrade(&driver, |driver| {
                    // From the event loop: nothing borrows the session.
                    let fired = driver.timer.borrow_mut().take();
                    driver.session.borrow_mut().handle_timeout(now());
                    driver.pump();
                    drop(fired);
                })
            });
            (at, timeout)
        });
        // The timer it replaces is cleared after the borrow.
        let replaced = std::mem::replace(&mut *self.timer.borrow_mut(), timer);
        drop(replaced);
    }

    /// Queues the microtask that ends the task (port batches, acknowledgements, messages to itself).
    fn queue_end_of_task(&self) {
        if let Some(window) = web_sys::window() {
            window.queue_microtask(self.end_of_task.as_ref().unchecked_ref());
        }
    }

    /// Registers a tool of the page that runs `handler`; `signal`, when given, unregisters it on abort.
    pub fn register(
        self: &Rc<Self>,
        spec: ToolSpec,
        handler: Handler,
        signal: Option<web_sys::AbortSignal>,
    ) -> Result<Registration, BridgeError> {
        // While the session is borrowed, no answer can be had: the registration is refused.
        let Ok(mut session) = self.session.try_borrow_mut() else { return Err(BridgeError::Busy) };
        let name = spec.name.to_string();
        // The handle is in place before the session's effects (native's registration among them) are carried out.
        let answer = session.handle(Input::Register { spec: Box::new(spec) }, now());
        drop(session);
        let registered = match answer {
            Answer::Registered(registered) => registered.map_err(BridgeError::from),
            // The session answers a registration with `Registered`: this arm is never taken.
            _ => Err(BridgeError::Busy),
        };
        let registration = match registered {
            Ok(registration) => registration,
            Err(error) => {
                self.pump();
                return Err(error);
            }
        };
        let driver = self.me.clone();
        let abort = signal.map(|signal| {
            EventListener::once(&signal, "abort", move |_| {
                upgrade(&driver, |driver| {
                    driver.unregister(&name, Some(registration));
                })
            })
        });
        self.handles.borrow_mut().tools.insert(registration, ToolHandle { handler, form: None, _abort: abort });
        self.pump();
        Ok(registration)
    }

    /// Unregisters the tool `name` (only `registration` of it, when given), and tells the windows that listed
    /// it. Whether one was removed (false while the session is borrowed: the pump unregisters it later).
    pub fn unregister(&self, name: &str, registration: Option<Registration>) -> bool {
        let answer = self.handle(Input::Unregister { name: name.to_owned(), registration });
        self.pump();
        answer == Some(true)
    }

    /// A console warning about this page (rate-limited with the others).
    pub fn warn_own(&self, kind: RefusalKind, text: &str) {
        self.input(Input::WarnOwn { kind, text: text.to_owned() });
    }

    /// Starts a call whose caller is a JavaScript promise (`resolve`, `reject`): its waiter, whose settlement takes
    /// the `result` form, and a stop of the call when `signal` aborts; `call` makes the input that names the waiter.
    pub fn start_js_call(
        &self,
        resolve: js_sys::Function,
        reject: js_sys::Function,
        signal: Option<web_sys::AbortSignal>,
        result: JsResult,
        call: impl FnOnce(WaiterId) -> Input,
    ) {
        let waiter = self.handles.borrow_mut().reserve_waiter();
        let driver = self.me.clone();
        let abort = signal.as_ref().map(|signal| {
            EventListener::once(signal, "abort", move |_| upgrade(&driver, |d| d.input(Input::Stop(waiter))))
        });
        let caller = Waiter::CallJs { resolve, reject, signal, result, _abort: abort };
        self.handles.borrow_mut().waiters.insert(waiter, caller);
        self.input(call(waiter));
    }

    /// A new waiter, registered before the input that names it.
    pub fn add_waiter(&self, waiter: Waiter) -> WaiterId {
        self.handles.borrow_mut().new_waiter(waiter)
    }

    /// The windows around this page with their ids (new ones shown to the session), and those the page passed.
    pub fn windows_to_ask(&self, extra: &[JsValue]) -> Vec<(WindowId, Locator)> {
        let mut asked: Vec<(WindowId, Locator)> = Vec::new();
        let around = windows_around();
        let extra = extra.iter().filter(|w| crate::js::is_window(w)).map(|w| (w.clone(), Locator::Unknown));
        for (window, locator) in around.into_iter().chain(extra) {
            let id = self.window_id(&window);
            if !asked.iter().any(|(w, _)| *w == id) {
                asked.push((id, locator));
            }
        }
        asked
    }

    /// The id of `window`; a window new to the driver is shown to the session, with what the browser says of it,
    /// read before the handles are borrowed.
    pub fn window_id(&self, window: &JsValue) -> WindowId {
        let known = self.handles.borrow().known(window);
        if let Some(id) = known {
            return id;
        }
        let facts = handles::facts(window);
        let id = self.handles.borrow_mut().add_window(window);
        self.handle(Input::WindowSeen { window: id, facts });
        id
    }

    /// Hands the session a window message and carries out what it decided; whether the message was the bridge's
    /// (`Answer::Heard`), so that the page's own listeners never see it (a message that waits in the inbox counts
    /// as the bridge's).
    pub fn hear(&self, input: Input) -> bool {
        let answer = self.handle(input);
        self.pump();
        answer != Some(false)
    }

    /// The session's name for a port that came with a message (none while the session is borrowed).
    pub fn new_port(&self) -> Option<PortId> {
        let Ok(mut session) = self.session.try_borrow_mut() else { return None };
        match session.handle(Input::NewPort, now()) {
            Answer::Port(port) => Some(port),
            _ => None,
        }
    }

    /// The peer of `window`'s tools at `origin` (the native tool's `origin`, as the browser gave it) on native's
    /// path (none while the session is borrowed).
    pub fn native_peer(&self, window: WindowId, origin: &str) -> Option<PeerId> {
        let Ok(mut session) = self.session.try_borrow_mut() else { return None };
        let input = Input::NativePeer { window, origin: WindowOrigin::from_browser(origin) };
        match session.handle(input, now()) {
            Answer::Peer(peer) => Some(peer),
            _ => None,
        }
    }

    /// Opens the journals in the session (tab.rs knows which tab and frame this page is; the session reads from
    /// `storage` whether the page before it crashed), read from `storage`, which their writes go to from now on.
    pub fn open_journals(&self, storage: RawStore, owner: Owner, label: String, config: JournalConfig) {
        let around: Vec<(WindowId, Locator)> =
            windows_around().into_iter().map(|(window, locator)| (self.window_id(&window), locator)).collect();
        let opening = JournalsOpening { owner, label, config, around };
        // From the tab claim's task: nothing borrows the session; page code that reading calls finds it busy.
        {
            let mut slot = self.storage.borrow_mut();
            let storage = slot.insert(storage);
            self.session.borrow_mut().open_journals(storage, opening, now());
        }
        self.pump();
    }
}

impl From<interpane_policy::session::RegisterError> for BridgeError {
    fn from(error: interpane_policy::session::RegisterError) -> Self {
        match error {
            interpane_policy::session::RegisterError::DuplicateTool(name) => BridgeError::DuplicateTool(name),
            other => BridgeError::Register(other),
        }
    }
}
