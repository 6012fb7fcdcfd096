//! What a tool's visibility becomes in the browser's native WebMCP registry (`native_exposure`): a table of the
//! tool's own list, the page's list, and the exact `exposedTo` and left-out entries. Runs natively and, on wasm32,
//! in the browser.
#![cfg_attr(target_arch = "wasm32", allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use interpane_policy::{OriginList, OriginListError, ParseOptions, WindowOrigin, native_exposure};

fn list(text: &str) -> Result<OriginList, OriginListError> {
    OriginList::parse_with(text, ParseOptions::default().allow_wildcards(true))
}

/// The tool's own exposedTo or None, the page's expose-tools-to, exposedTo for native, left out.
type Case = (Option<&'static str>, &'static str, &'static [&'static str], &'static [&'static str]);

const CASES: &[Case] = &[
    (None, "", &[], &[]),
    (None, "https://widget.example", &["https://widget.example"], &[]),
    (None, "https://a.example, https://b.example", &["https://a.example", "https://b.example"], &[]),
    (None, "HTTPS://A.example:443/", &["https://a.example"], &[]),
    (None, "http://127.0.0.1:8402, http://localhost:8403", &["http://127.0.0.1:8402", "http://localhost:8403"], &[]),
    (None, "https://*.example.com", &[], &["https://*.example.com"]),
    (
        None,
        "https://a.example, https://*.b.example, https://c.example",
        &["https://a.example", "https://c.example"],
        &["https://*.b.example"],
    ),
    // A tool's own list replaces the page's, never adds to it.
    (Some("https://pay.example"), "https://widget.example", &["https://pay.example"], &[]),
    (Some(""), "https://widget.example", &[], &[]),
    (Some("https://*.pay.example"), "https://widget.example", &[], &["https://*.pay.example"]),
];

#[test]
fn native_exposure_takes_the_exact_origins_of_the_list_that_applies() {
    for (tool, page, exposed, left_out) in CASES {
        let tool_list = tool.map(|text| list(text).unwrap());
        let exposure = native_exposure(tool_list.as_ref(), &list(page).unwrap());
        assert_eq!(exposure.exposed_to, *exposed, "exposedTo for tool {tool:?} on page {page:?}");
        assert_eq!(exposure.left_out, *left_out, "left out for tool {tool:?} on page {page:?}");
    }
}

/// Every origin native is told is one the bridge's own rule lets see the tool: native is never wider.
#[test]
fn native_is_never_wider_than_the_bridge() {
    for (tool, page, _, _) in CASES {
        let tool_list = tool.map(|text| list(text).unwrap());
        let page_list = list(page).unwrap();
        for origin in native_exposure(tool_list.as_ref(), &page_list).exposed_to {
            assert!(
                interpane_policy::tool_visible_to(
                    &WindowOrigin::from_browser(&origin),
                    &WindowOrigin::from_browser("https://owner.example"),
                    tool_list.as_ref(),
                    &page_list
                ),
                "{origin} for tool {tool:?} on page {page:?}"
            );
        }
    }
}
