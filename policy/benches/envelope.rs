//! Cost of decoding and encoding the messages on the hot path: an execute request with 1 KiB of arguments and
//! one with a 64 KiB string argument, an execute response with a 64 KiB result, a port batch of 1000 small calls,
//! and, for scale, `serde_json::from_str::<Value>` of the same 64 KiB request.
//!
//! Run with `cargo bench -p interpane-policy --bench envelope`.

#[cfg(not(target_arch = "wasm32"))]
#[allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "a benchmark whose inputs do not behave as described must stop at once"
)]
mod native {
    use std::hint::black_box;

    use criterion::{Criterion, Throughput, criterion_group};
    use interpane_policy::envelope::{ExecuteRequest, ExecuteResponse};
    use interpane_policy::{
        Decoded, JsonText, Limits, Message, RequestId, ToolName, decode, decode_batch, encode_batch,
    };
    use serde_json::{Value, json};

    const CALL: &str = "c_6YV2n0cM1yqg1nq4cH3Wyw";

    /// An execute request whose arguments are an object of about 1 KiB.
    fn request_1k() -> String {
        let items: Vec<Value> = (0..14)
            .map(|i| json!({"sku": format!("sku-{i:04}"), "qty": i, "price": 12.5 + f64::from(i), "note": "extra cheese"}))
            .collect();
        let text = json!({
            "type": "WEBMCP_EXECUTE_TOOL_REQUEST", "requestId": CALL, "name": "add_to_cart",
            "args": {"cart": "c-42", "items": items}
        })
        .to_string();
        assert!((900..1200).contains(&text.len()), "{}", text.len());
        text
    }

    /// An execute request whose one argument is a 64 KiB string (with a few escapes in it).
    fn request_64k() -> String {
        let body = "Lorem ipsum dolor sit amet, \"consectetur\" adipiscing elit.\n".repeat(1200);
        let text = json!({
            "type": "WEBMCP_EXECUTE_TOOL_REQUEST", "requestId": CALL, "name": "summarize",
            "args": {"text": body[..65_536].to_owned()}
        })
        .to_string();
        assert!(text.len() > 65_536);
        text
    }

    /// A success response whose result holds 64 KiB of text.
    fn response_64k() -> String {
        let body = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(1200);
        let text = json!({
            "type": "WEBMCP_EXECUTE_TOOL_RESPONSE", "requestId": CALL, "success": true,
            "result": {"content": [{"type": "text", "text": body[..65_536].to_owned()}]}
        })
        .to_string();
        assert!(text.len() > 65_536);
        text
    }

    fn message(text: &str) -> Message {
        match decode(text, &Limits::default()).unwrap() {
            Decoded::Message(message) => message,
            Decoded::NotOurs => panic!("not ours: {text}"),
        }
    }

    fn decoding(c: &mut Criterion) {
        let limits = Limits::default();
        let mut group = c.benchmark_group("envelope/decode");
        for (name, text) in [
            ("execute_request_1k", request_1k()),
            ("execute_request_64k", request_64k()),
            ("execute_response_64k", response_64k()),
        ] {
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_function(name, |b| b.iter(|| decode(black_box(&text), &limits)));
        }
        let text = request_64k();
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function("serde_json_value_request_64k", |b| {
            b.iter(|| serde_json::from_str::<Value>(black_box(&text)))
        });
        let batch = encode_batch(
            &(0..1000)
                .map(|i| {
                    Message::ExecuteRequest(ExecuteRequest {
                        request_id: RequestId::new(format!("c_{i:022}")).unwrap(),
                        name: ToolName::new("add_to_cart").unwrap(),
                        args: JsonText::parse(r#"{"sku":"margherita","qty":1}"#, &limits).unwrap(),
                        resend: false,
                    })
                })
                .collect::<Vec<_>>(),
        );
        group.throughput(Throughput::Elements(1000));
        group.bench_function("batch_of_1000_requests", |b| b.iter(|| decode_batch(black_box(&batch), &limits)));
        group.finish();
    }

    fn encoding(c: &mut Criterion) {
        let limits = Limits::default();
        let mut group = c.benchmark_group("envelope/encode");
        for (name, text) in [
            ("execute_request_1k", request_1k()),
            ("execute_request_64k", request_64k()),
            ("execute_response_64k", response_64k()),
        ] {
            let message = message(&text);
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_function(name, |b| b.iter(|| black_box(&message).encode()));
        }
        let Message::ExecuteResponse(ExecuteResponse { outcome: Ok(result), request_id }) = message(&response_64k())
        else {
            panic!("a success")
        };
        group.bench_function("success_64k_result_truncated_to_30k", |b| {
            b.iter(|| ExecuteResponse::success(request_id.clone(), black_box(&result).clone(), &limits))
        });
        group.finish();
    }

    criterion_group!(benches, decoding, encoding);
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(native::benches);

#[cfg(target_arch = "wasm32")]
fn main() {}
