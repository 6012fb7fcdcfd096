//! The table of checks that `demo-check` prints, and its verdict.

use std::time::Duration;

/// The outcome of one check: what was seen when it passed, or why it failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckRow {
    /// What the check proves, e.g. `add to cart`.
    pub name: String,
    /// `Ok(what was seen)` or `Err(why it failed)`; either may span several lines.
    pub outcome: Result<String, String>,
    /// How long the check took.
    pub took: Duration,
}

impl CheckRow {
    /// Whether the check passed.
    pub fn passed(&self) -> bool {
        self.outcome.is_ok()
    }

    fn detail(&self) -> &str {
        match &self.outcome {
            Ok(detail) | Err(detail) => detail,
        }
    }
}

/// Every check of a run, in the order they are shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    rows: Vec<CheckRow>,
}

/// The longest detail shown in the table; the full text of a failure follows the table.
const DETAIL_WIDTH: usize = 110;

impl Report {
    /// Adds a row.
    pub fn push(&mut self, row: CheckRow) {
        self.rows.push(row);
    }

    /// Adds the rows of another report after this one's.
    pub fn extend(&mut self, other: Report) {
        self.rows.extend(other.rows);
    }

    /// True when there is at least one check and every check passed.
    pub fn all_passed(&self) -> bool {
        !self.rows.is_empty() && self.rows.iter().all(CheckRow::passed)
    }

    /// The table (check, result, seconds, detail), then the full text of each failure, then a summary line.
    pub fn render(&self) -> String {
        let name_width = self.rows.iter().map(|row| row.name.chars().count()).max().unwrap_or(0).max("check".len());
        let mut out = format!("{:<name_width$}  result  {:>6}  detail\n", "check", "time");
        out.push_str(&format!("{}  ------  ------  {}\n", "-".repeat(name_width), "-".repeat(6)));
        for row in &self.rows {
            let result = if row.passed() { "ok" } else { "FAIL" };
            let seconds = format!("{:.1}s", row.took.as_secs_f64());
            out.push_str(&format!(
                "{:<name_width$}  {result:<6}  {seconds:>6}  {}\n",
                row.name,
                one_line(row.detail())
            ));
        }
        let failures: Vec<&CheckRow> = self.rows.iter().filter(|row| !row.passed()).collect();
        for row in &failures {
            out.push_str(&format!("\nFAIL {}:\n{}\n", row.name, indent(row.detail())));
        }
        let passed = self.rows.len() - failures.len();
        out.push_str(&format!("\n{passed} of {} checks passed\n", self.rows.len()));
        out
    }
}

/// The first line of `text`, cut to [`DETAIL_WIDTH`] characters (with `…` when something was left out).
fn one_line(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    let more_lines = text.lines().nth(1).is_some();
    if first.chars().count() > DETAIL_WIDTH {
        format!("{}…", first.chars().take(DETAIL_WIDTH - 1).collect::<String>())
    } else if more_lines {
        format!("{first} …")
    } else {
        first.to_owned()
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|line| format!("    {line}")).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, outcome: Result<&str, &str>, millis: u64) -> CheckRow {
        CheckRow {
            name: name.to_owned(),
            outcome: outcome.map(str::to_owned).map_err(str::to_owned),
            took: Duration::from_millis(millis),
        }
    }

    #[test]
    fn the_verdict_needs_every_check_and_at_least_one() {
        let cases: Vec<(Vec<CheckRow>, bool)> = vec![
            (vec![], false),
            (vec![row("a", Ok("seen"), 1)], true),
            (vec![row("a", Ok("seen"), 1), row("b", Err("broken"), 1)], false),
            (vec![row("a", Err("broken"), 1)], false),
        ];
        for (rows, expected) in cases {
            let mut report = Report::default();
            for row in rows.clone() {
                report.push(row);
            }
            assert_eq!(report.all_passed(), expected, "rows {rows:?}");
        }
    }

    #[test]
    fn the_table_shows_each_row_and_the_full_text_of_failures() {
        let mut report = Report::default();
        report.push(row("add to cart", Ok("chip completed"), 1234));
        report.push(row("pay", Err("expected 1, got 2\nframes:\n[0] shop"), 50));
        let expected = "\
check        result    time  detail
-----------  ------  ------  ------
add to cart  ok        1.2s  chip completed
pay          FAIL      0.1s  expected 1, got 2 …

FAIL pay:
    expected 1, got 2
    frames:
    [0] shop

1 of 2 checks passed
";
        assert_eq!(report.render(), expected);
    }

    #[test]
    fn long_details_are_cut_to_one_line() {
        let cases = [
            ("short".to_owned(), "short".to_owned()),
            ("x".repeat(DETAIL_WIDTH), "x".repeat(DETAIL_WIDTH)),
            ("y".repeat(DETAIL_WIDTH + 1), format!("{}…", "y".repeat(DETAIL_WIDTH - 1))),
            ("one\ntwo".to_owned(), "one …".to_owned()),
            (String::new(), String::new()),
        ];
        for (text, expected) in cases {
            assert_eq!(one_line(&text), expected, "text {text:?}");
        }
    }
}
