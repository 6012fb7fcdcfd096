//! The page's two journals (its calls to others, others' calls to it), what waits for them to open, and when they
//! reach storage.

use crate::envelope::Message;
use crate::guard::RefusalKind;
use crate::journal::log_store::LogStore;
use crate::journal::{ConsumerJournal, JournalConfig, JournalStore, Owner, ProviderJournal};
use crate::session::calls::PageCall;
use crate::session::ids::{Locator, WindowId};
use crate::session::io::Effect;
use crate::session::peers::Sender;
use crate::session::timers::Timer;
use crate::session::{Session, WindowFacts};

/// The journals, once this page knows which tab and frame it is.
pub(crate) struct Journals {
    pub consumer: ConsumerJournal<LogStore>,
    pub provider: ProviderJournal<LogStore>,
    /// The tab's public label, which call announcements carry instead of the tab id.
    pub label: String,
    /// An [`Effect::WriteJournals`] is queued and not carried out yet: it will write every change made until then.
    pub write_queued: bool,
    /// The key that says a page of this frame slot is alive (in a durable store only): written when the journals
    /// open, removed by the last write when the page goes away cleanly. A page that finds it when its journals
    /// open follows a page that crashed, which may not have written its last batch.
    pub alive_key: Option<String>,
    /// The page went away (`pagehide`): the next write removes `alive_key`.
    pub gone: bool,
    /// `alive_key` is in the store.
    pub alive_written: bool,
}

/// Work that waits for the journals.
#[derive(Debug)]
pub(crate) enum Deferred {
    Message(Sender, Message),
    Execute(PageCall),
    NativeSettled(crate::ids::RequestId, Result<crate::JsonText, crate::outcome::ToolError>),
}

/// Which page the journals are this page's.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone)]
pub struct JournalsOpening {
    /// The tab and frame slot this page is (tab.rs, `tab_probe::TabClaim`).
    pub owner: Owner,
    /// The tab's public label, which call announcements carry instead of the tab id.
    pub label: String,
    /// The journals' limits.
    pub config: JournalConfig,
    /// The windows around this page now (to find the providers of the previous page's calls again).
    pub around: Vec<(WindowId, Locator)>,
}

impl Session {
    /// Opens the journals, read from `storage` (the page's sessionStorage, or memory: the store every later
    /// [`Session::write_journals`] is handed): the logs of `opening.owner`'s frame slot, what they could not read
    /// (a warning each), what the previous page left unfinished (resumed), the previous page's crash (noted, with a
    /// warning). Then runs what waited for them. The one time the session reads storage.
    pub fn open_journals(&mut self, storage: &mut dyn JournalStore, opening: JournalsOpening, now: u64) {
        self.now = self.now.max(now);
        let JournalsOpening { owner, label, config, around } = opening;
        let (tab, slot) = (owner.tab(), owner.slot());
        // A page of this slot that did not go away cleanly left its key: its last batch of writes may be missing.
        let alive_key = storage.is_durable().then(|| format!("webmcp:alive:{tab}:{slot}"));
        let previous_page_crashed = alive_key.as_deref().is_some_and(|key| storage.get(key).is_some());
        let alive_written = alive_key.as_deref().is_some_and(|key| storage.put(key, "1").is_ok());
        let mut consumer_log = LogStore::open(storage, &format!("webmcp:log:c:{tab}:{slot}:"), now);
        let mut provider_log = LogStore::open(storage, &format!("webmcp:log:p:{tab}:{slot}:"), now);
        for discarded in consumer_log.take_discarded().into_iter().chain(provider_log.take_discarded()) {
            let text = format!("discarded a journal record it cannot read ({}: {})", discarded.key, discarded.reason);
            self.effects.push_back(Effect::Warn(text));
        }
        let (mut consumer, recoveries) = ConsumerJournal::open(consumer_log, owner.clone(), config.clone(), now);
        let mut provider = ProviderJournal::open(provider_log, owner, config, now);
        // Entries are encoded when the journals are written (batched), each once in its latest state.
        consumer.defer_writes();
        provider.defer_writes();
        if previous_page_crashed {
            self.effects.push_back(Effect::Warn(
                "the previous page of this frame did not go away cleanly (a crash?): for a day, this page will not \
                 run a re-sent call it cannot prove it never received"
                    .to_owned(),
            ));
            provider.previous_page_crashed(now);
        }
        for warning in consumer.take_warnings().into_iter().chain(provider.take_warnings()) {
            self.effects.push_back(Effect::Warn(format!("journal: {warning}")));
        }
        for (window, locator) in around {
            self.windows.entry(window).or_insert(WindowFacts { ancestor: locator == Locator::Parent, locator });
        }
        self.journals =
            Some(Journals { consumer, provider, label, write_queued: false, alive_key, gone: false, alive_written });
        self.flush_journals();
        self.recover(recoveries);
        for work in std::mem::take(&mut self.deferred) {
            self.run_deferred(work);
        }
        self.announce_presence();
        // This page listens on the calls channel from now on: the other pages that hear it answer, and each side
        // then announces its calls to the other (docs/protocol.md).
        self.effects.push_back(Effect::PostCalls(crate::calls_channel::HELLO.to_owned()));
        self.effects.push_back(Effect::Ready);
    }

    /// Whether the journals are open.
    pub fn is_ready(&self) -> bool {
        self.journals.is_some()
    }

    /// Runs `work` now when the journals are open, or as soon as they are (a bounded queue: beyond it, refused).
    pub(crate) fn when_journals_open(&mut self, work: Deferred) {
        if self.journals.is_some() {
            self.run_deferred(work);
        } else if self.deferred.len() < self.config.limits.max_batch_len {
            self.deferred.push(work);
        } else {
            if let Deferred::Execute(request) = work {
                let error = crate::outcome::ToolError::new(
                    crate::outcome::ErrorKind::Refused,
                    "too many calls before the bridge was ready",
                );
                self.effects.push_back(Effect::Settle {
                    waiter: request.waiter,
                    outcome: crate::journal::CallOutcome::Failed(error),
                });
            }
            let own = self.config.own_origin.clone();
            self.warn(
                RefusalKind::Backlog,
                &own,
                "too much work queued before the bridge was ready; dropped a message",
            );
        }
    }

    fn run_deferred(&mut self, work: Deferred) {
        match work {
            Deferred::Message(from, message) => self.on_journal_message(from, message),
            Deferred::Execute(request) => self.start_call(request),
            Deferred::NativeSettled(wire_id, result) => self.native_settled(&wire_id, result),
        }
    }

    /// Asks for the journals to reach storage soon (batched: one write for everything that changed meanwhile).
    pub(crate) fn schedule_journal_flush(&mut self) {
        let at = self.now + u64::from(self.config.flush_delay_ms);
        self.timers.set_once(Timer::JournalFlush, at);
    }

    /// Has the journals written before any effect queued from now on is carried out: queues
    /// [`Effect::WriteJournals`] unless one is queued already (it writes what changed until the driver carries it
    /// out, so one is enough).
    pub(crate) fn flush_journals(&mut self) {
        self.timers.clear(&Timer::JournalFlush);
        let Some(journals) = self.journals.as_mut() else { return };
        if !std::mem::replace(&mut journals.write_queued, true) {
            self.effects.push_back(Effect::WriteJournals);
        }
    }

    /// Writes the journals' changes to `storage`, the page's store (the one their logs were opened from): what
    /// the driver does when it meets [`Effect::WriteJournals`]. A store that fails leaves its journal in memory,
    /// with a warning. The session's only contact with storage after its journals are open. `now` is the time, as
    /// with every input: the logs stamp their segments with it, and a provider journal that finds the store full
    /// expires its held results and notes its horizon as of then.
    pub fn write_journals(&mut self, storage: &mut dyn JournalStore, now: u64) {
        self.now = self.now.max(now);
        let now = self.now;
        let Some(journals) = self.journals.as_mut() else { return };
        journals.write_queued = false;
        let mut warnings = Vec::new();
        // Each journal writes its changed entries, once each, then its log; a failure leaves it in memory.
        if let Err(error) = journals.consumer.flush(now, storage) {
            warnings.push(format!(
                "{error}; the call journal now lives in memory, so a reload of this page cannot resume its calls"
            ));
        }
        // On a full store, the provider sheds results before it gives up durability.
        if let Err(error) = journals.provider.flush(now, storage) {
            warnings.push(format!("{error}; the provider journal now lives in memory"));
        }
        // Gone cleanly, after the last batch: no crash for the next page of the slot. Back (the back/forward
        // cache): alive again.
        if let Some(key) = journals.alive_key.as_deref() {
            if journals.gone && journals.alive_written {
                storage.remove(key);
                journals.alive_written = false;
            } else if !journals.gone && !journals.alive_written {
                journals.alive_written = storage.put(key, "1").is_ok();
            }
        }
        let own = self.config.own_origin.clone();
        for text in warnings {
            self.warn(RefusalKind::StorageFailed, &own, &text);
        }
    }
}
