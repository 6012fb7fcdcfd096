//! The demo server over real sockets: origins, headers, test-mode spy, config and truth endpoints.

// The helpers below are test code too: a failed expectation is a failed test.
#![allow(clippy::expect_used)]

use std::path::PathBuf;

use interpane_demo_sites::{DemoConfig, DemoError, DemoServer, RunningDemo, Site, SitePorts};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Extra request headers.
type Headers<'a> = &'a [(&'a str, &'a str)];

/// A response as the tests need it: status, lower-cased headers, body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }
}

/// One HTTP/1.1 request with `Connection: close` to `site`'s socket; `host` overrides the Host header.
async fn request(
    demo: &RunningDemo,
    site: Site,
    method: &str,
    path: &str,
    extra: Headers<'_>,
    host: Option<&str>,
) -> Reply {
    let authority = demo.origin(site).trim_start_matches("http://").to_owned();
    let socket_address = authority.replace("localhost", "127.0.0.1");
    let mut stream = TcpStream::connect(&socket_address).await.expect("connect");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: 0\r\n",
        host.unwrap_or(&authority)
    );
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.expect("write");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let mut lines = head.lines();
    let status =
        lines.next().and_then(|line| line.split(' ').nth(1)).and_then(|code| code.parse().ok()).expect("status");
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Reply { status, headers, body: body.to_owned() }
}

async fn get(demo: &RunningDemo, site: Site, path: &str) -> Reply {
    request(demo, site, "GET", path, &[], None).await
}

/// A bridge package folder with a stand-in wasm file: one per server, since the tests run at once. (They shared one
/// folder per process, and a test that rewrote the files while another's server was sending them made that server
/// drop the connection: the other test read no reply, about once in 20 runs.) The folders live in Cargo's
/// scratch folder for integration tests (`target/tmp`), not in the system's temporary folder, which they filled.
fn fake_pkg() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("interpane-demo-pkg-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("pkg dir");
    std::fs::write(dir.join("interpane_bg.wasm"), b"\0asm\x01\0\0\0").expect("wasm");
    std::fs::write(dir.join("interpane.js"), "export default async function init() {}\n").expect("js");
    dir
}

async fn start(test_mode: bool) -> RunningDemo {
    let config = DemoConfig { pkg_dir: fake_pkg(), test_mode, ..DemoConfig::for_tests() };
    DemoServer::start(config).await.expect("demo starts")
}

#[tokio::test]
async fn every_site_serves_its_page_the_shared_folders_and_the_package() {
    let demo = start(false).await;
    let titles = [
        (Site::Shop, "Pizzeria Ponte"),
        (Site::Widget, "Shop assistant"),
        (Site::Pay, "PontePay"),
        (Site::Evil, "Evil"),
    ];
    for (site, title) in titles {
        let page = get(&demo, site, "/").await;
        assert_eq!(page.status, 200, "{site} /");
        assert!(page.body.contains(title), "{site} page title");
        assert_eq!(page.header("cache-control"), Some("no-store"), "{site} cache-control");
        assert!(!page.body.contains("__postMessageLog"), "{site}: no spy outside test mode");

        let css = get(&demo, site, "/common/style.css").await;
        assert_eq!((css.status, css.header("content-type")), (200, Some("text/css")), "{site} /common/");

        let wasm = get(&demo, site, "/pkg/interpane_bg.wasm").await;
        assert_eq!((wasm.status, wasm.header("content-type")), (200, Some("application/wasm")), "{site} wasm");
        assert_eq!(wasm.header("cache-control"), Some("no-store"));
        assert_eq!(wasm.header("access-control-allow-origin"), Some("*"), "sandboxed frames fetch with CORS");

        let js = get(&demo, site, "/pkg/interpane.js").await;
        assert_eq!(js.status, 200);
        assert!(js.header("content-type").is_some_and(|t| t.contains("javascript")), "{site} js type");
    }
    assert_eq!(get(&demo, Site::Shop, "/pay.js").await.status, 404, "sites do not share their own folders");
    demo.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn test_mode_puts_the_spy_first_on_every_html_page() {
    let demo = start(true).await;
    for (site, path) in [
        (Site::Shop, "/"),
        (Site::Widget, "/index.html"),
        (Site::Evil, "/sandboxed.html"),
        (Site::Evil, "/opaque.html"),
    ] {
        let page = get(&demo, site, path).await;
        assert_eq!(page.status, 200);
        let spy = page.body.find("__postMessageLog").expect("spy present");
        let first_other_script = page.body.find("<script type=\"module\"").expect("page script");
        assert!(spy < first_other_script, "{site}{path}: the spy runs first");
        assert!(page.body.starts_with("<!doctype html>"), "{site}{path}: doctype stays first");
    }
    let css = get(&demo, Site::Shop, "/common/style.css").await;
    assert!(!css.body.contains("__postMessageLog"), "only HTML is rewritten");
    demo.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn config_reports_the_origins_of_this_run() {
    let demo = start(true).await;
    let config = get(&demo, Site::Pay, "/config.json").await;
    let value: serde_json::Value = serde_json::from_str(&config.body).expect("json");
    let expected = serde_json::json!({
        "site": "pay",
        "testMode": true,
        "origins": {
            "shop": demo.origin(Site::Shop), "widget": demo.origin(Site::Widget),
            "pay": demo.origin(Site::Pay), "evil": demo.origin(Site::Evil),
        },
    });
    assert_eq!(value, expected);
    let module = get(&demo, Site::Pay, "/config.js").await;
    assert!(module.header("content-type").is_some_and(|t| t.starts_with("text/javascript")));
    assert!(module.body.contains(&format!("\"pay\":\"{}\"", demo.origin(Site::Pay))));
    let hosts: Vec<&str> = Site::ALL.iter().map(|site| demo.origin(*site).split(':').nth(1).unwrap_or("")).collect();
    assert_eq!(hosts, ["//127.0.0.1", "//localhost", "//127.0.0.2", "//127.0.0.3"]);
    demo.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn a_request_for_another_host_is_misdirected() {
    let demo = start(false).await;
    let shop_port = demo.origin(Site::Shop).rsplit(':').next().unwrap_or("").to_owned();
    let reply = request(&demo, Site::Shop, "GET", "/", &[], Some(&format!("localhost:{shop_port}"))).await;
    assert_eq!(reply.status, 421);
    assert!(reply.body.contains("this server is the shop site"), "{}", reply.body);
    demo.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn counters_change_only_from_their_own_origin() {
    let demo = start(false).await;
    let shop = demo.origin(Site::Shop).to_owned();
    let evil = demo.origin(Site::Evil).to_owned();
    let cases: [(Headers<'_>, u16, u64); 4] = [
        (&[("Origin", &shop)], 200, 1),
        (&[("Origin", &evil)], 403, 1),
        (&[("Origin", "null")], 403, 1),
        (&[], 403, 1),
    ];
    for (headers, status, value) in cases {
        let reply = request(&demo, Site::Shop, "POST", "/__counter/add_to_cart", headers, None).await;
        assert_eq!(reply.status, status, "POST with {headers:?}: {}", reply.body);
        assert_eq!(demo.counter(Site::Shop, "add_to_cart"), value, "after POST with {headers:?}");
    }
    let bad = request(&demo, Site::Shop, "POST", "/__counter/no%20spaces", &[("Origin", &shop)], None).await;
    assert_eq!(bad.status, 400);
    let read = get(&demo, Site::Evil, "/__counters").await;
    let all: serde_json::Value = serde_json::from_str(&read.body).expect("json");
    assert_eq!(all["shop"]["add_to_cart"], 1, "every origin reads all counters");

    let refused = request(&demo, Site::Shop, "POST", "/__counters/reset", &[("Origin", &evil)], None).await;
    assert_eq!((refused.status, demo.counter(Site::Shop, "add_to_cart")), (403, 1));
    let reset = request(&demo, Site::Shop, "POST", "/__counters/reset", &[("Origin", &shop)], None).await;
    assert_eq!((reset.status, demo.counter(Site::Shop, "add_to_cart")), (200, 0));
    demo.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn slow_waits_as_asked_within_a_cap() {
    let demo = start(false).await;
    let started = std::time::Instant::now();
    let reply = get(&demo, Site::Pay, "/__slow?ms=150").await;
    assert_eq!(reply.body, r#"{"sleptMs":150}"#);
    assert!(started.elapsed() >= std::time::Duration::from_millis(150));
    demo.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn bad_configurations_are_refused_with_the_reason() {
    let same_port =
        DemoConfig { ports: SitePorts { shop: 9100, widget: 9101, pay: 9100, evil: 0 }, ..DemoConfig::for_tests() };
    let error = DemoServer::start(same_port).await.expect_err("duplicate port");
    assert!(
        matches!(error, DemoError::DuplicatePort { port: 9100, first: Site::Shop, second: Site::Pay }),
        "{error:?}"
    );

    let missing = PathBuf::from("/nonexistent/static");
    let no_pages = DemoConfig { static_dir: missing.clone(), ..DemoConfig::for_tests() };
    let error = DemoServer::start(no_pages).await.expect_err("missing folder");
    assert!(matches!(&error, DemoError::MissingStaticDir { path } if *path == missing.join("shop")), "{error:?}");

    let holder = std::net::TcpListener::bind("127.0.0.2:0").expect("bind");
    let taken = holder.local_addr().expect("addr").port();
    let busy = DemoConfig { ports: SitePorts { pay: taken, ..SitePorts::ANY_FREE }, ..DemoConfig::for_tests() };
    let error = DemoServer::start(busy).await.expect_err("port taken");
    assert!(matches!(&error, DemoError::Bind { site: Site::Pay, .. }), "{error:?}");
    assert!(error.to_string().contains(&format!("127.0.0.2:{taken}")), "{error}");
}
