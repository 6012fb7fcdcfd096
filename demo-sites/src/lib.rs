//! Multi-origin demo pages for webmcp-bridge (filled by the demo-sites issue).
