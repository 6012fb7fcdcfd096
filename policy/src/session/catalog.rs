//! The page's own tools: registering and unregistering them, which origin sees which, and telling the windows that
//! listed them when they change.

use thiserror::Error;

use crate::envelope::{JsonText, Message, ToolDescriptor};
use crate::ids::ToolName;
use crate::origin::{OriginList, OriginPattern, TupleOrigin, WindowOrigin, native_exposure, tool_visible_to};
use crate::session::Session;
use crate::session::ids::{FormId, PeerId, Registration};
use crate::session::io::{Effect, ToolSpec};

/// Why a tool cannot be registered. The session decides it for every way a tool comes in (the JavaScript API, the
/// Rust API, a declarative form), so that each is held to the same rules.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RegisterError {
    /// The page already has a tool of this name.
    #[error("a tool named {0} is already registered in this page; unregister it first")]
    DuplicateTool(String),
    /// The tool's description is empty: an agent could not tell what the tool does (native WebMCP refuses it too).
    #[error("registerTool({0}): tool.description must not be empty")]
    EmptyDescription(String),
    /// The tool's `inputSchema` or `annotations` is not a JSON object within the page's limits.
    #[error("registerTool({tool}): {field} {reason}")]
    Field {
        /// The tool's name.
        tool: String,
        /// `inputSchema` or `annotations`.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

/// The rules every tool is held to before it is registered, whichever API it comes from: a description, and a schema
/// and annotations that are JSON objects within the page's limits (size, depth, no `__proto__` key).
fn check_spec(spec: &ToolSpec, limits: &crate::Limits) -> Result<(), RegisterError> {
    let tool = || spec.name.to_string();
    if spec.description.is_empty() {
        return Err(RegisterError::EmptyDescription(tool()));
    }
    for (field, json) in [("inputSchema", &spec.input_schema), ("annotations", &spec.annotations)] {
        let Some(json) = json else { continue };
        let reason = match JsonText::parse(json.as_str(), limits) {
            Err(error) => error.to_string(),
            Ok(parsed) if !parsed.is_object() => "must be an object".to_owned(),
            Ok(_) => continue,
        };
        return Err(RegisterError::Field { tool: tool(), field, reason });
    }
    Ok(())
}

impl ToolSpec {
    /// A tool with a name and a description, no schema, no `exposedTo` of its own, registered with native too.
    pub fn new(name: ToolName, description: impl Into<String>) -> Self {
        Self {
            name,
            description: description.into(),
            input_schema: None,
            annotations: None,
            checker: None,
            exposed_to: None,
            to_native: true,
        }
    }
}

/// A registered tool.
#[derive(Debug)]
pub(crate) struct LocalTool {
    pub spec: ToolSpec,
    pub registration: Registration,
}

impl LocalTool {
    pub fn descriptor(&self, own_origin: &WindowOrigin) -> ToolDescriptor {
        ToolDescriptor {
            name: self.spec.name.clone(),
            description: self.spec.description.clone(),
            input_schema: self.spec.input_schema.clone(),
            origin: Some(own_origin.serialization().to_owned()),
            annotations: self.spec.annotations.clone(),
        }
    }

    /// Whether `caller` may see this tool: its own `exposedTo`, else the page's list; the page's origin always.
    pub fn visible_to(&self, caller: &WindowOrigin, own_origin: &WindowOrigin, page_list: &OriginList) -> bool {
        tool_visible_to(caller, own_origin, self.spec.exposed_to.as_ref(), page_list)
    }
}

/// The page's tools in registration order.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    tools: Vec<LocalTool>,
    next: u64,
}

impl Catalog {
    pub fn get(&self, name: &str) -> Option<&LocalTool> {
        self.tools.iter().find(|t| t.spec.name.as_str() == name)
    }

    pub fn all(&self) -> &[LocalTool] {
        &self.tools
    }
}

impl Session {
    /// Adds a tool of this page (see [`Input::Register`](crate::session::Input::Register)); unless `quiet`, tells
    /// the windows that listed the page's tools and fires `toolchange`. With native WebMCP, registers it there too
    /// (exposed to the exact origins that may see it). The tool of a declarative `form` is named to the driver
    /// ([`Effect::FormTool`]) before native's registration, which needs the form's definition.
    pub(crate) fn add_tool(
        &mut self,
        spec: ToolSpec,
        quiet: bool,
        form: Option<FormId>,
    ) -> Result<Registration, RegisterError> {
        if self.catalog.get(spec.name.as_str()).is_some() {
            return Err(RegisterError::DuplicateTool(spec.name.to_string()));
        }
        check_spec(&spec, &self.config.limits)?;
        self.catalog.next += 1;
        let registration = Registration(self.catalog.next);
        if let Some(form) = form {
            self.effects.push_back(Effect::FormTool { form, registration: Some(registration) });
        }
        if self.config.native && spec.to_native {
            let exposure = native_exposure(spec.exposed_to.as_ref(), &self.config.expose_tools_to);
            let descriptor = ToolDescriptor {
                name: spec.name.clone(),
                description: spec.description.clone(),
                input_schema: spec.input_schema.clone(),
                origin: None,
                annotations: spec.annotations.clone(),
            };
            self.effects.push_back(Effect::ToNative { registration, descriptor, exposed_to: exposure.exposed_to });
            if !exposure.left_out.is_empty() {
                let text = format!(
                    "the browser's WebMCP lists {} without {} (it takes exact origins only); the bridge still exposes it there",
                    spec.name,
                    exposure.left_out.join(", ")
                );
                let own = self.config.own_origin.clone();
                self.warn(crate::guard::RefusalKind::NativeRegistry, &own, &text);
            }
        }
        // The windows around this page at the exact origins the tool is exposed to (its own list, not the page's
        // own origin) hear of it even when they never listed this page: a window that has not asked for this
        // page's tools does not know its origin, and native tells it (its `toolchange`). Chromium prints an error for
        // each such post that reaches a window of another origin.
        let own = self.config.own_origin.tuple().cloned();
        let exposed: Vec<TupleOrigin> = spec
            .exposed_to
            .iter()
            .flatten()
            .filter_map(|pattern| match pattern {
                OriginPattern::Exact(exact) => Some(TupleOrigin::from(exact)),
                OriginPattern::Wildcard(_) => None,
            })
            .filter(|origin| own.as_ref() != Some(origin))
            .collect();
        let exposure = spec.exposed_to.clone();
        self.catalog.tools.push(LocalTool { spec, registration });
        if !quiet {
            self.announce_tools_changed(exposure.as_ref());
            if !exposed.is_empty() {
                self.effects.push_back(Effect::PostAround { message: Message::ToolsChanged, origins: exposed });
            }
        }
        Ok(registration)
    }

    /// Removes the tool `name` (only `registration` of it, when given), from native too (see
    /// [`Input::Unregister`](crate::session::Input::Unregister)); unless `quiet`, tells the windows that listed
    /// the page's tools. The registration removed, if one was.
    pub(crate) fn remove_tool(
        &mut self,
        name: &str,
        registration: Option<Registration>,
        quiet: bool,
    ) -> Option<Registration> {
        let index = self
            .catalog
            .tools
            .iter()
            .position(|t| t.spec.name.as_str() == name && registration.is_none_or(|r| r == t.registration))?;
        let tool = self.catalog.tools.remove(index);
        if self.config.native && tool.spec.to_native {
            self.effects.push_back(Effect::UnregisterFromNative(tool.registration));
        }
        if !quiet {
            self.announce_tools_changed(tool.spec.exposed_to.as_ref());
        }
        Some(tool.registration)
    }

    /// Whether `caller` may see at least one of this page's tools.
    pub(crate) fn any_visible(&self, caller: &WindowOrigin) -> bool {
        let (own, list) = (&self.config.own_origin, &self.config.expose_tools_to);
        self.catalog.tools.iter().any(|t| t.visible_to(caller, own, list))
    }

    /// Tells the windows that listed this page's tools that they changed — only those whose origin can see the
    /// tool that changed (`exposed_to`: its own `exposedTo`, `None` for the page's list), which is the same tool
    /// before the change and after it: a window lists the same tools as before when it cannot, so it hears nothing,
    /// and an origin learns nothing of tools hidden from it — and fires `toolchange` in this page.
    pub(crate) fn announce_tools_changed(&mut self, exposed_to: Option<&OriginList>) {
        let mut told = Vec::new();
        let (own, list) = (self.config.own_origin.clone(), self.config.expose_tools_to.clone());
        let catalog = &self.catalog;
        for peer in self.peers.iter_mut().filter(|p| p.listed_ours && p.id != PeerId::SELF && p.bridge) {
            if tool_visible_to(&peer.origin, &own, exposed_to, &list) {
                told.push(peer.id);
            }
            peer.sees_ours = catalog.tools.iter().any(|t| t.visible_to(&peer.origin, &own, &list));
        }
        for peer in told {
            self.send(peer, &Message::ToolsChanged);
        }
        self.effects.push_back(Effect::ToolChange);
    }

    /// Tells the windows around this page that it has tools, addressed to the origins that may see them: the
    /// page's own and every exact origin of its lists. Consumers that asked too early list again.
    pub(crate) fn announce_presence(&mut self) {
        // The page's own origin, unless it is opaque: no message can be addressed to an opaque origin.
        let mut origins: Vec<TupleOrigin> = self.config.own_origin.tuple().cloned().into_iter().collect();
        let lists = std::iter::once(&self.config.expose_tools_to)
            .chain(self.catalog.tools.iter().filter_map(|t| t.spec.exposed_to.as_ref()));
        for list in lists {
            for pattern in list {
                if let OriginPattern::Exact(exact) = pattern
                    && !origins.iter().any(|o| o.as_str() == exact.as_str())
                {
                    origins.push(TupleOrigin::from(exact));
                }
            }
        }
        self.effects.push_back(Effect::PostAround { message: Message::ToolsChanged, origins });
    }
}
