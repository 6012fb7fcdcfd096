//! The "no bridge post to '*'" check: every page the run opened is read through the test-mode spy, which
//! also hears every window message the bridge posts (its audit hook, records `via: "bridge"`).

use interpane_e2e::Session;
use interpane_e2e::spy::{FrameLog, check_no_wildcard_posts};

/// What the spy of one page (the top document and all its frames) showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageSpy {
    /// The page, for people (e.g. `shop`, `evil /opaque.html`).
    pub page: String,
    /// The frames read and the bridge posts counted, or why the page failed the check.
    pub outcome: Result<SpySeen, String>,
}

/// Counts of what the spy recorded on one page; none of the posts used `'*'`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpySeen {
    /// Frames read (the top document included).
    pub frames: usize,
    /// Window messages the bridges of those frames posted.
    pub bridge_posts: usize,
}

/// Reads the spy of every frame of the session's current page. Leaves the session at the top.
pub async fn read_page(session: &Session, page: &str) -> PageSpy {
    let outcome = match check_no_wildcard_posts(session).await {
        Ok(logs) => Ok(seen(&logs)),
        Err(error) => Err(error.to_string()),
    };
    PageSpy { page: page.to_owned(), outcome }
}

fn seen(logs: &[FrameLog]) -> SpySeen {
    let bridge_posts =
        logs.iter().flat_map(|log| log.records.iter().flatten()).filter(|record| record.via == "bridge").count();
    SpySeen { frames: logs.len(), bridge_posts }
}

/// The verdict over every page: each page passed, and the bridges were heard posting at all (a spy that heard
/// nothing would pass vacuously).
pub fn verdict(pages: &[PageSpy]) -> Result<String, String> {
    let failed: Vec<String> = pages
        .iter()
        .filter_map(|page| page.outcome.as_ref().err().map(|why| format!("{}: {why}", page.page)))
        .collect();
    if !failed.is_empty() {
        return Err(failed.join("\n"));
    }
    let counts: Vec<(&str, SpySeen)> =
        pages.iter().filter_map(|page| page.outcome.as_ref().ok().map(|seen| (page.page.as_str(), *seen))).collect();
    let bridge_posts: usize = counts.iter().map(|(_, seen)| seen.bridge_posts).sum();
    let frames: usize = counts.iter().map(|(_, seen)| seen.frames).sum();
    if counts.is_empty() || bridge_posts == 0 {
        return Err(format!(
            "the spy heard no bridge post on {} page(s): is the audit hook still called?",
            counts.len()
        ));
    }
    let per_page: Vec<String> = counts.iter().map(|(page, seen)| format!("{page} {}", seen.bridge_posts)).collect();
    Ok(format!(
        "{bridge_posts} bridge posts in {frames} frames of {} pages, none to '*' ({})",
        counts.len(),
        per_page.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(name: &str, outcome: Result<(usize, usize), &str>) -> PageSpy {
        PageSpy {
            page: name.to_owned(),
            outcome: outcome.map(|(frames, bridge_posts)| SpySeen { frames, bridge_posts }).map_err(str::to_owned),
        }
    }

    #[test]
    fn verdicts_are_exact() {
        let cases: Vec<(Vec<PageSpy>, Result<&str, &str>)> = vec![
            (vec![], Err("the spy heard no bridge post on 0 page(s): is the audit hook still called?")),
            (
                vec![page("shop", Ok((3, 0)))],
                Err("the spy heard no bridge post on 1 page(s): is the audit hook still called?"),
            ),
            (
                vec![page("shop", Ok((3, 40))), page("evil", Ok((6, 2)))],
                Ok("42 bridge posts in 9 frames of 2 pages, none to '*' (shop 40, evil 2)"),
            ),
            (
                vec![page("shop", Ok((3, 40))), page("evil", Err("postMessage used '*': x"))],
                Err("evil: postMessage used '*': x"),
            ),
            (vec![page("a", Err("one")), page("b", Err("two"))], Err("a: one\nb: two")),
        ];
        for (pages, expected) in cases {
            let expected = expected.map(str::to_owned).map_err(str::to_owned);
            assert_eq!(verdict(&pages), expected, "pages {pages:?}");
        }
    }
}
