//! Between the journal's outcomes and the protocol's responses.

use webmcp_policy::envelope::ExecuteResponse;
use webmcp_policy::journal::ToolOutcome;
use webmcp_policy::{ErrorKind, JsonText, Limits, RequestId, ToolError};

/// The response that carries `outcome`.
pub(crate) fn outcome_to_response(request_id: RequestId, outcome: ToolOutcome, limits: &Limits) -> ExecuteResponse {
    match outcome {
        ToolOutcome::Completed { result } => match JsonText::parse(&result, limits) {
            Ok(result) => ExecuteResponse::success(request_id, result, limits),
            Err(error) => ExecuteResponse::failure(
                request_id,
                ToolError::new(ErrorKind::ToolError, format!("the tool's result cannot be sent: {error}")),
            ),
        },
        ToolOutcome::Failed(error) => ExecuteResponse::failure(request_id, error),
    }
}

/// The outcome a response carries.
pub(crate) fn response_to_outcome(response: ExecuteResponse) -> ToolOutcome {
    match response.outcome {
        Ok(result) => ToolOutcome::Completed { result: result.into_string() },
        Err(error) => ToolOutcome::Failed(error),
    }
}
