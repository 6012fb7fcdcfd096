//! Between the journal's outcomes and the protocol's responses.

use webmcp_policy::envelope::ExecuteResponse;
use webmcp_policy::journal::ToolOutcome;
use webmcp_policy::{Limits, RequestId};

/// The response that carries `outcome` (from the provider journal, which holds only JSON results).
pub(crate) fn outcome_to_response(request_id: RequestId, outcome: ToolOutcome, limits: &Limits) -> ExecuteResponse {
    ExecuteResponse::from_outcome(request_id, outcome, limits)
}

/// The outcome a response carries.
pub(crate) fn response_to_outcome(response: ExecuteResponse) -> ToolOutcome {
    match response.outcome {
        Ok(result) => ToolOutcome::Completed { result: result.into_string() },
        Err(error) => ToolOutcome::Failed(error),
    }
}
