//! End-to-end suites (filled by the demo-sites issue).
