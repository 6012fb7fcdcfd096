//! Test mode: the postMessage spy, injected as the first script of every HTML page.

use axum::body::{Body, to_bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The spy's source. It defines `window.__postMessageLog`, an array of
/// `{ via: "window" | "port", targetOrigin: string | null, type: string }` entries (at most 5,000).
pub const SPY_SCRIPT: &str = include_str!("spy.js");

/// Largest HTML page the server rewrites in test mode (the demo's pages are a few kilobytes).
const MAX_HTML_BYTES: usize = 1 << 20;

/// Returns `html` with `<script>{script}</script>` inserted before anything that could run: right after the
/// `<head>` start tag; without one, after the doctype; without that, at the very start.
/// The doctype must stay first or the page would render in quirks mode.
pub fn inject_first_script(html: &str, script: &str) -> String {
    let tag = format!("<script>{script}</script>");
    let at = insertion_point(html);
    let mut out = String::with_capacity(html.len() + tag.len());
    out.push_str(&html[..at]);
    out.push_str(&tag);
    out.push_str(&html[at..]);
    out
}

/// Byte offset where the spy goes. Always a char boundary: every offset is just after an ASCII `>`, or 0.
fn insertion_point(html: &str) -> usize {
    let lower = html.to_ascii_lowercase();
    if let Some(end) = start_tag_end(&lower, "<head") {
        return end;
    }
    if lower.trim_start().starts_with("<!doctype")
        && let Some(close) = lower.find('>')
    {
        return close + 1;
    }
    0
}

/// End (after `>`) of the first start tag named exactly `open` (`<head`, not `<header`).
fn start_tag_end(lower: &str, open: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = lower[from..].find(open) {
        let name_end = from + found + open.len();
        match lower.as_bytes().get(name_end) {
            Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/') => {
                return lower[name_end..].find('>').map(|close| name_end + close + 1);
            }
            _ => from = name_end,
        }
    }
    None
}

/// Response mapper (`axum::middleware::map_response`): adds the spy to successful HTML responses.
pub async fn add_spy_to_html(response: Response) -> Response {
    let is_html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/html"));
    if !is_html || response.status() != StatusCode::OK {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = to_bytes(body, MAX_HTML_BYTES).await else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "page too large for the test-mode spy").into_response();
    };
    let page = inject_first_script(&String::from_utf8_lossy(&bytes), SPY_SCRIPT);
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::ETAG);
    parts.headers.remove(header::LAST_MODIFIED);
    Response::from_parts(parts, Body::from(page))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spy_goes_before_every_other_script() {
        let s = "<script>S</script>";
        let cases = [
            (
                "<!doctype html><html><head><script>x</script>",
                format!("<!doctype html><html><head>{s}<script>x</script>"),
            ),
            (
                "<!DOCTYPE html>\n<HTML><HEAD lang=en><title>t</title>",
                format!("<!DOCTYPE html>\n<HTML><HEAD lang=en>{s}<title>t</title>"),
            ),
            (
                "<!doctype html><body><header>h</header><script>x</script>",
                format!("<!doctype html>{s}<body><header>h</header><script>x</script>"),
            ),
            ("<p>fragment</p>", format!("{s}<p>fragment</p>")),
            ("", s.to_owned()),
            ("<!doctype html", format!("{s}<!doctype html")),
            ("<head>é</head>", format!("<head>{s}é</head>")),
        ];
        for (page, expected) in cases {
            assert_eq!(inject_first_script(page, "S"), expected, "page {page:?}");
        }
    }
}
