//! What the runner puts into the pages it serves: the result reporter, the host info, and the bridge.
//!
//! A page with the bridge must have the bridge's `document.modelContext` before its own scripts run, but the package
//! loads as a module and `init()` is asynchronous. So every `<script>` of the page is made inert (its `type` becomes
//! [`DEFERRED_TYPE`]), and a module inserted at the top of the page imports the package, awaits `init()`, calls
//! `install()`, then runs those scripts again in document order. A classic script before it holds the page's load
//! event meanwhile (an image whose answer waits for the module's release), so testharness, which starts on `load`,
//! and frames whose `onload` the tests await see the bridge installed.

use crate::server::{Origins, PREFIX};

/// The `type` that keeps a page's script from running until the bridge is installed.
pub const DEFERRED_TYPE: &str = "text/x-wpt-webmcp-deferred";

/// Served as `/resources/testharnessreport.js`: leaves every subtest's name, status and message where the runner
/// reads them (`window.__wptWebmcpResults`).
pub const REPORT_SCRIPT: &str = r#"// interpane's wpt-webmcp runner: results for the runner to read.
add_completion_callback(function (tests, harness) {
  window.__wptWebmcpResults = {
    harness: harness.status,
    message: harness.message || null,
    tests: tests.map(function (t) { return { name: t.name, status: t.status, message: t.message || null }; }),
  };
});
"#;

/// Served as `/common/get-host-info.sub.js`: wpt's names for origins, given the loopback origins this run serves.
/// The `HTTPS_` names keep their meaning (a secure context: loopback http is one), not their scheme.
pub fn host_info_script(origins: &Origins) -> String {
    let (main, remote, other) = (&origins.main, &origins.remote, &origins.other);
    format!(
        "// interpane's wpt-webmcp runner: the origins of this run.\n\
         function get_host_info() {{\n  return {{\n    \
         ORIGINAL_HOST: '127.0.0.1', REMOTE_HOST: '127.0.0.1', NOTSAMESITE_HOST: 'localhost',\n    \
         HTTP_ORIGIN: '{main}', HTTPS_ORIGIN: '{main}',\n    \
         HTTP_REMOTE_ORIGIN: '{remote}', HTTPS_REMOTE_ORIGIN: '{remote}',\n    \
         HTTP_NOTSAMESITE_ORIGIN: '{other}', HTTPS_NOTSAMESITE_ORIGIN: '{other}',\n    \
         OTHER_ORIGIN: '{other}', HTTPS_OTHER_ORIGIN: '{other}', HTTPS_OTHER_NOTSAMESITE_ORIGIN: '{other}',\n  \
         }};\n}}\n"
    )
}

/// `html` with its scripts made inert and the bridge's loader at its top. The loader calls `install()` without
/// options, as the README does: each tool's `exposedTo` decides who beyond the page's own origin sees it.
pub fn with_bridge(html: &str) -> String {
    let html = defer_scripts(html);
    let at = insertion_point(&html);
    let loader = format!(
        r#"<script>
(function () {{
  var id = Math.random().toString(36).slice(2) + Date.now().toString(36);
  window.__wptWebmcpHold = id;
  var img = document.createElement('img');
  img.hidden = true;
  img.src = '{PREFIX}/hold/' + id;
  document.documentElement.appendChild(img);
}})();
</script><script type="module">
try {{
  const {{ default: init, install }} = await import('{PREFIX}/pkg/index.js');
  await init();
  install();
}} catch (error) {{
  window.__wptWebmcpBridgeError = String((error && error.stack) || error);
}}
try {{
  for (const inert of Array.from(document.querySelectorAll('script[type="{DEFERRED_TYPE}"]'))) {{
    const script = document.createElement('script');
    for (const attribute of Array.from(inert.attributes)) {{
      if (attribute.name === 'type') continue;
      script.setAttribute(attribute.name === 'data-wpt-webmcp-type' ? 'type' : attribute.name, attribute.value);
    }}
    script.async = false;
    if (inert.hasAttribute('src')) {{
      const done = new Promise((resolve) => {{ script.onload = resolve; script.onerror = resolve; }});
      inert.replaceWith(script);
      await done;
    }} else {{
      script.text = inert.text;
      inert.replaceWith(script);
    }}
  }}
}} finally {{
  fetch('{PREFIX}/release/' + window.__wptWebmcpHold);
}}
</script>"#
    );
    format!("{}{}{}", &html[..at], loader, &html[at..])
}

/// Just after `<head ...>`, else after `<!DOCTYPE ...>`, else the start.
fn insertion_point(html: &str) -> usize {
    let lower = html.to_ascii_lowercase();
    for opening in ["<head", "<!doctype"] {
        if let Some(start) = lower.find(opening)
            && let Some(end) = lower[start..].find('>')
        {
            return start + end + 1;
        }
    }
    0
}

/// Every `<script ...>` opening tag gets `type="DEFERRED_TYPE"` (its own `type` kept as `data-wpt-webmcp-type`);
/// the script's text is left as it is.
fn defer_scripts(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len() + 256);
    let mut at = 0;
    while let Some(found) = lower[at..].find("<script") {
        let start = at + found;
        let name_end = start + "<script".len();
        let is_tag = lower[name_end..].starts_with(|c: char| c.is_ascii_whitespace() || c == '>');
        let Some(tag_len) = lower[name_end..].find('>') else { break };
        let tag_end = name_end + tag_len;
        out.push_str(&html[at..name_end]);
        if !is_tag {
            at = name_end;
            continue;
        }
        let attributes = &html[name_end..tag_end];
        let attributes = match attributes.to_ascii_lowercase().find("type=") {
            Some(type_at) => format!("{}data-wpt-webmcp-{}", &attributes[..type_at], &attributes[type_at..]),
            None => attributes.to_owned(),
        };
        out.push_str(&format!(" type=\"{DEFERRED_TYPE}\"{attributes}>"));
        // The script's text runs to its end tag; nothing in it is a tag.
        let body_end = lower[tag_end..].find("</script").map_or(html.len(), |end| tag_end + end);
        out.push_str(&html[tag_end + 1..body_end]);
        at = body_end;
    }
    out.push_str(&html[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_become_inert_and_keep_their_text_and_type() {
        let html = "<script src=\"/a.js\"></script><SCRIPT>if (a<script) x();</SCRIPT><script type=module>m</script>";
        assert_eq!(
            defer_scripts(html),
            format!(
                "<script type=\"{DEFERRED_TYPE}\" src=\"/a.js\"></script>\
                 <SCRIPT type=\"{DEFERRED_TYPE}\">if (a<script) x();</SCRIPT>\
                 <script type=\"{DEFERRED_TYPE}\" data-wpt-webmcp-type=module>m</script>"
            )
        );
    }

    #[test]
    fn the_loader_goes_first_in_the_head() {
        assert_eq!(insertion_point("<!DOCTYPE html>\n<html><head><title>"), "<!DOCTYPE html>\n<html><head>".len());
        assert_eq!(insertion_point("<!DOCTYPE html>\n<meta charset=utf-8>"), "<!DOCTYPE html>".len());
        assert_eq!(insertion_point("<p>"), 0);
    }
}
