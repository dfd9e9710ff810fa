//! The class page's regrade section (`class-page RDIR --regrade-from OLD_RDIR`): whose points
//! changed since the old run, by how much, and which checks changed verdict.

use super::escape::html;
use crate::official::regrade::{Diff, points, verdict};
use std::fmt::Write as _;

/// The section for `diff` against the run in `old` (a folder, as the instructor named it);
/// `who` writes a student's id as the page links it.
pub fn section(body: &mut String, old: &str, diff: &Diff, who: &dyn Fn(&str) -> String) {
    let _ = writeln!(
        body,
        "<h2>Regrade</h2>\n<p>Since <code>{}</code>: {} student(s) changed, {} unchanged.</p>",
        html(old),
        diff.changed.len(),
        diff.unchanged
    );
    if diff.changed.is_empty() {
        return;
    }
    let _ = writeln!(
        body,
        "<table id=\"regrade\">\n<thead><tr><th>Student</th><th>Before</th><th>After</th>\
         <th>Change</th><th>Checks that changed verdict</th></tr></thead>\n<tbody>"
    );
    for s in &diff.changed {
        let checks: Vec<String> = s
            .checks
            .iter()
            .map(|c| {
                let (l, e, n) = &c.check;
                format!(
                    "<code>{}</code>: {} → {}",
                    html(&format!("{l} / {e} / {n}")),
                    html(&verdict(c.old)),
                    html(&verdict(c.new))
                )
            })
            .collect();
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{:+}</td><td>{}</td></tr>",
            who(&s.id),
            html(&points(s.old)),
            html(&points(s.new)),
            s.delta(),
            checks.join("<br>")
        );
    }
    let _ = writeln!(body, "</tbody>\n</table>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::Status::{Passed, Wrong};
    use crate::official::regrade::{diff, tests::report};

    #[test]
    fn the_section_lists_each_change_with_its_checks_and_escapes_ids() {
        let (before, after) = (report(&[("values", Wrong)]), report(&[("values", Passed)]));
        let d = diff(
            &[("<b>".to_owned(), &before)],
            &[("<b>".to_owned(), &after)],
        );
        let mut body = String::new();
        section(&mut body, "old<run>", &d, &|id| html(id));
        assert!(body.contains("<code>old&lt;run&gt;</code>: 1 student(s) changed, 0 unchanged"));
        assert!(
            body.contains(
                "<tr><td>&lt;b&gt;</td><td class=\"num\">0/2</td><td class=\"num\">2/2</td>\
             <td class=\"num\">+2</td><td><code>lesson01 / split / values</code>: wrong → \
             passed</td></tr>"
            ),
            "{body}"
        );
        let mut none = String::new();
        section(&mut none, "old", &diff(&[], &[]), &|id| html(id));
        assert!(!none.contains("<table"), "{none}");
    }
}
