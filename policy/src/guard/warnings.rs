//! Console hygiene: every refusal is visible to the page's developer, and no peer can flood the console.

use super::origins::OriginTable;
use crate::envelope::ErrorCategory;
use crate::limits::Limits;
use crate::session::{FormId, FormProblem};

/// Why the bridge refused something, for grouping console warnings.
#[cfg_attr(feature = "record", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RefusalKind {
    /// A message that broke the envelope rules.
    Envelope(ErrorCategory),
    /// `WEBMCP_GET_TOOLS_REQUEST`s beyond the per-origin rate.
    GetToolsRateLimited,
    /// A call beyond `Limits::max_calls_in_flight_per_origin`.
    TooManyCalls,
    /// A response that no waiting call expects (wrong window, wrong origin, or an id not waiting).
    UnsolicitedResponse,
    /// A request from an origin that may not see the tools it asks about.
    OriginNotAllowed,
    /// A message from an opaque origin (`"null"`), which never gets a reply.
    OpaqueOrigin,
    /// A message that arrived while the bridge was starting, beyond the work it keeps until it is ready.
    Backlog,
    /// A `postMessage` that the browser refused to send.
    PostFailed,
    /// A tool that the browser's native WebMCP registry refused or lists more narrowly (the bridge still has it).
    NativeRegistry,
    /// A journal write that storage refused.
    StorageFailed,
    /// A declarative form of the page that is not a tool, and why: one kind per form and problem, so that a form
    /// that keeps changing while it stays broken warns once a minute, and every other form still warns at once.
    FormTool {
        /// The form.
        form: FormId,
        /// Why it is not a tool.
        problem: FormProblem,
    },
}

impl From<ErrorCategory> for RefusalKind {
    fn from(category: ErrorCategory) -> Self {
        Self::Envelope(category)
    }
}

/// Whether to print a console warning now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningDecision {
    /// Print it, saying how many like it were not printed since the last one.
    Print {
        /// Refusals of this kind from this origin that were not printed since the last warning.
        suppressed: u64,
    },
    /// Count it, print nothing.
    Suppress,
}

/// The state of one (kind, origin) pair.
#[derive(Debug, Clone, Copy)]
struct Gate<K> {
    kind: K,
    printed_at: u64,
    suppressed: u64,
}

/// Decides when a refusal deserves a console warning: the first of each (kind, origin) prints, then at most one
/// per interval (a minute by default), carrying the number suppressed since.
///
/// Pure (the time is a parameter, in milliseconds) and bounded: at most `Limits::max_tracked_origins` origins
/// (the least recently seen is forgotten, so its next refusal prints again) and [`WarningGate::MAX_KINDS`] kinds
/// per origin. With a capacity of 0 nothing prints.
///
/// ```
/// use interpane_policy::guard::{RefusalKind, WarningDecision, WarningGate};
/// use interpane_policy::Limits;
///
/// let mut gate: WarningGate = WarningGate::new(&Limits::default());
/// let (kind, origin) = (RefusalKind::TooManyCalls, "https://evil.example");
/// assert_eq!(gate.check(kind, origin, 0), WarningDecision::Print { suppressed: 0 });
/// assert_eq!(gate.check(kind, origin, 10), WarningDecision::Suppress);
/// assert_eq!(gate.check(kind, origin, 20), WarningDecision::Suppress);
/// assert_eq!(gate.check(kind, origin, 60_000), WarningDecision::Print { suppressed: 2 });
/// ```
#[derive(Debug, Clone)]
pub struct WarningGate<K = RefusalKind> {
    origins: OriginTable<Vec<Gate<K>>>,
    interval_ms: u64,
}

impl<K: Copy + Eq> WarningGate<K> {
    /// The default time between two warnings of the same kind from the same origin.
    pub const INTERVAL_MS: u64 = 60_000;
    /// The most kinds remembered per origin; beyond, the kind printed longest ago is forgotten.
    pub const MAX_KINDS: usize = 32;

    /// A gate tracking `Limits::max_tracked_origins` origins, one warning a minute.
    pub fn new(limits: &Limits) -> Self {
        Self::with_interval(limits.max_tracked_origins, Self::INTERVAL_MS)
    }

    /// A gate tracking `max_origins` origins, one warning per `interval_ms`.
    pub fn with_interval(max_origins: usize, interval_ms: u64) -> Self {
        Self { origins: OriginTable::new(max_origins), interval_ms }
    }

    /// Records a refusal of `kind` from `origin` at time `now` and says whether to print it. Allocates only for
    /// a (kind, origin) pair not tracked yet.
    pub fn check(&mut self, kind: K, origin: &str, now: u64) -> WarningDecision {
        let Some(gates) = self.origins.entry(origin, Vec::new) else {
            return WarningDecision::Suppress;
        };
        if let Some(gate) = gates.iter_mut().find(|gate| gate.kind == kind) {
            if now.saturating_sub(gate.printed_at) < self.interval_ms {
                gate.suppressed = gate.suppressed.saturating_add(1);
                return WarningDecision::Suppress;
            }
            gate.printed_at = now;
            return WarningDecision::Print { suppressed: std::mem::take(&mut gate.suppressed) };
        }
        if gates.len() >= Self::MAX_KINDS
            && let Some(oldest) = gates.iter().enumerate().min_by_key(|(_, gate)| gate.printed_at).map(|(at, _)| at)
        {
            gates.swap_remove(oldest);
        }
        gates.push(Gate { kind, printed_at: now, suppressed: 0 });
        WarningDecision::Print { suppressed: 0 }
    }

    /// How many origins are tracked.
    pub fn tracked_origins(&self) -> usize {
        self.origins.len()
    }
}
