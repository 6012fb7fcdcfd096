//! The test gates over real sockets: a wait is answered only once the gate opens, per site, and only the site's
//! own pages or the harness (no `Origin`) may open or reset them.

// Test code: a failed expectation is a failed test.
#![allow(clippy::expect_used)]

use std::time::Duration;

use interpane_demo_sites::gates::GateState;
use interpane_demo_sites::{DemoConfig, DemoServer, RunningDemo, Site};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One HTTP/1.1 request with `Connection: close`; returns the status and the body.
async fn request(demo: &RunningDemo, site: Site, method: &str, path: &str, origin: Option<&str>) -> (u16, String) {
    let authority = demo.origin(site).trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(authority.replace("localhost", "127.0.0.1")).await.expect("connect");
    let mut head =
        format!("{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Length: 0\r\n");
    if let Some(origin) = origin {
        head.push_str(&format!("Origin: {origin}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.expect("write");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let status = head.split(' ').nth(1).and_then(|code| code.parse().ok()).expect("status");
    (status, body.to_owned())
}

async fn start() -> RunningDemo {
    DemoServer::start(DemoConfig::for_tests()).await.expect("demo starts")
}

/// Polls until `site`'s gate `name` has `count` waiting requests.
async fn until_waiting(demo: &RunningDemo, site: Site, name: &str, count: usize) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while demo.gates().waiting(site, name) != count {
        assert!(tokio::time::Instant::now() < deadline, "{count} requests never waited at {site}'s gate {name}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn a_wait_is_answered_when_the_harness_opens_the_gate() {
    let demo = std::sync::Arc::new(start().await);
    let waiting = {
        let demo = demo.clone();
        tokio::spawn(async move { request(&demo, Site::Pay, "GET", "/__gate/run-1/wait", None).await })
    };
    until_waiting(&demo, Site::Pay, "run-1", 1).await;
    let (status, body) = request(&demo, Site::Pay, "GET", "/__gate/run-1", None).await;
    assert_eq!((status, body.as_str()), (200, r#"{"name":"run-1","open":false,"site":"pay","waiting":1}"#));
    assert!(!waiting.is_finished(), "the wait is still held");

    let (status, body) = request(&demo, Site::Pay, "POST", "/__gate/run-1/open", None).await;
    assert_eq!((status, body.as_str()), (200, r#"{"name":"run-1","open":true,"site":"pay"}"#));
    let (status, body) = waiting.await.expect("the wait ends");
    assert_eq!((status, body.as_str()), (200, r#"{"name":"run-1","opened":true,"site":"pay"}"#));
    assert_eq!(demo.gates().state(Site::Pay, "run-1"), GateState { open: true, waiting: 0 });
    let again = request(&demo, Site::Pay, "GET", "/__gate/run-1/wait", None).await;
    assert_eq!(again.0, 200, "an open gate answers at once");
}

#[tokio::test]
async fn the_rust_api_opens_a_gate_a_page_waits_at() {
    let demo = std::sync::Arc::new(start().await);
    let waiting = {
        let demo = demo.clone();
        tokio::spawn(async move { request(&demo, Site::Shop, "GET", "/__gate/g/wait?timeoutMs=10000", None).await })
    };
    until_waiting(&demo, Site::Shop, "g", 1).await;
    assert_eq!(demo.gates().waiting(Site::Pay, "g"), 0, "gates are per site");
    demo.gates().open(Site::Shop, "g").expect("valid name");
    assert_eq!(waiting.await.expect("the wait ends").0, 200);
}

#[tokio::test]
async fn an_unopened_gate_times_out_and_bad_names_are_refused() {
    let demo = start().await;
    let started = std::time::Instant::now();
    let (status, body) = request(&demo, Site::Pay, "GET", "/__gate/late/wait?timeoutMs=100", None).await;
    assert_eq!((status, body.as_str()), (504, "the pay gate late was not opened in time"));
    assert!(started.elapsed() >= Duration::from_millis(100));
    let (status, body) = request(&demo, Site::Pay, "POST", "/__gate/a%20b/open", None).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("gate name \"a b\" is invalid"), "{body}");
}

#[tokio::test]
async fn only_the_site_itself_or_the_harness_opens_and_resets_its_gates() {
    let demo = start().await;
    let shop = demo.origin(Site::Shop).to_owned();
    let evil = demo.origin(Site::Evil).to_owned();
    let cases: [(Option<&str>, u16, bool); 4] =
        [(Some(&evil), 403, false), (Some("null"), 403, false), (Some(&shop), 200, true), (None, 200, true)];
    for (index, (origin, status, open)) in cases.into_iter().enumerate() {
        let name = format!("g{index}");
        let reply = request(&demo, Site::Shop, "POST", &format!("/__gate/{name}/open"), origin).await;
        assert_eq!(reply.0, status, "open with Origin {origin:?}: {}", reply.1);
        assert_eq!(demo.gates().state(Site::Shop, &name).open, open, "gate after open with Origin {origin:?}");
    }
    let refused = request(&demo, Site::Shop, "POST", "/__gates/reset", Some(&evil)).await;
    assert_eq!(refused.0, 403);
    assert!(refused.1.contains("only be opened by its own pages or by the test harness"), "{}", refused.1);
    assert!(demo.gates().state(Site::Shop, "g3").open, "evil's reset changed nothing");
    assert_eq!(request(&demo, Site::Shop, "POST", "/__gates/reset", None).await.0, 200);
    assert_eq!(demo.gates().state(Site::Shop, "g3"), GateState::default(), "forgotten by the reset");
}

#[tokio::test]
async fn a_reset_answers_the_waiting_requests() {
    let demo = std::sync::Arc::new(start().await);
    let waiting = {
        let demo = demo.clone();
        tokio::spawn(async move { request(&demo, Site::Pay, "GET", "/__gate/held/wait", None).await })
    };
    until_waiting(&demo, Site::Pay, "held", 1).await;
    let pay = demo.origin(Site::Pay).to_owned();
    assert_eq!(request(&demo, Site::Pay, "POST", "/__gates/reset", Some(&pay)).await.0, 200);
    let (status, body) = waiting.await.expect("the wait ends");
    assert_eq!((status, body.as_str()), (409, "the pay gate held was reset while this request waited"));
}
