//! The HTTP side of the test gates (see [`crate::gates`]): every origin serves its own site's gates.
//!
//! | request | answer |
//! |---|---|
//! | `GET /__gate/<name>/wait[?timeoutMs=N]` | once the gate opens: `200 { site, name, opened: true }`; after the timeout (default 20 s, at most 60 s): `504` |
//! | `POST /__gate/<name>/open` | opens it: `200 { site, name, open: true }` |
//! | `GET /__gate/<name>` | `{ site, name, open, waiting }` |
//! | `POST /__gates/reset` | forgets this site's gates (waiting requests get `409`) |
//!
//! Opening and resetting are refused (`403`) to pages of other origins: the request must come from the site's
//! own pages or from a client that sends no `Origin` (the test harness). Browsers send `Origin` on every POST.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use crate::gates::{GateError, WaitOutcome, wait_timeout};
use crate::routes::SiteState;

/// The gate routes of one site, to merge into its router.
pub fn gate_routes() -> Router<SiteState> {
    Router::new()
        .route("/__gate/{name}", get(read_gate))
        .route("/__gate/{name}/wait", get(wait_at_gate))
        .route("/__gate/{name}/open", post(open_gate))
        .route("/__gates/reset", post(reset_gates))
}

#[derive(Deserialize)]
struct WaitQuery {
    #[serde(rename = "timeoutMs")]
    timeout_ms: Option<u64>,
}

async fn wait_at_gate(
    State(state): State<SiteState>,
    Path(name): Path<String>,
    Query(query): Query<WaitQuery>,
) -> Response {
    let site = state.site.name();
    match state.gates.wait(state.site, &name, wait_timeout(query.timeout_ms)).await {
        Ok(WaitOutcome::Opened) => Json(json!({ "site": site, "name": name, "opened": true })).into_response(),
        Ok(WaitOutcome::TimedOut) => {
            (StatusCode::GATEWAY_TIMEOUT, format!("the {site} gate {name} was not opened in time")).into_response()
        }
        Ok(WaitOutcome::Reset) => {
            (StatusCode::CONFLICT, format!("the {site} gate {name} was reset while this request waited"))
                .into_response()
        }
        Err(error) => refusal(&error),
    }
}

async fn open_gate(State(state): State<SiteState>, Path(name): Path<String>, headers: HeaderMap) -> Response {
    if let Err(refused) = require_own_origin_or_none(&state, &headers) {
        return refused.into_response();
    }
    match state.gates.open(state.site, &name) {
        Ok(()) => Json(json!({ "site": state.site.name(), "name": name, "open": true })).into_response(),
        Err(error) => refusal(&error),
    }
}

async fn read_gate(State(state): State<SiteState>, Path(name): Path<String>) -> Json<serde_json::Value> {
    let gate = state.gates.state(state.site, &name);
    Json(json!({ "site": state.site.name(), "name": name, "open": gate.open, "waiting": gate.waiting }))
}

async fn reset_gates(State(state): State<SiteState>, headers: HeaderMap) -> Response {
    if let Err(refused) = require_own_origin_or_none(&state, &headers) {
        return refused.into_response();
    }
    state.gates.reset_site(state.site);
    Json(json!({ "site": state.site.name(), "reset": true })).into_response()
}

/// A page of another origin may not open or reset this site's gates; the site's own pages and clients that send
/// no `Origin` (the test harness) may.
fn require_own_origin_or_none(state: &SiteState, headers: &HeaderMap) -> Result<(), (StatusCode, String)> {
    match headers.get(header::ORIGIN).map(|value| value.to_str()) {
        None => Ok(()),
        Some(Ok(origin)) if origin == state.origins.get(state.site) => Ok(()),
        Some(origin) => {
            let shown = origin.unwrap_or("an unreadable origin");
            let message = format!(
                "the {} site's gates can only be opened by its own pages or by the test harness, not by {shown}",
                state.site
            );
            Err((StatusCode::FORBIDDEN, message))
        }
    }
}

fn refusal(error: &GateError) -> Response {
    let status = match error {
        GateError::InvalidName { .. } => StatusCode::BAD_REQUEST,
        _ => StatusCode::INSUFFICIENT_STORAGE,
    };
    (status, error.to_string()).into_response()
}
