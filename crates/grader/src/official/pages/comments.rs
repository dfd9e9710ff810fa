//! The instructors' comments on the pages ([`crate::official::comments`]): a section of each
//! student's page with the comments that apply to them, and the class page's count of whom each
//! comment reached.

use super::escape::html;
use super::rows::{ClassRow, Standing};
use crate::official::comments::{Comment, Comments};
use std::fmt::Write as _;

/// The comments' section of a student's HTML page (nothing when none applies).
pub fn student_html(body: &mut String, comments: &[&Comment]) {
    if comments.is_empty() {
        return;
    }
    let _ = writeln!(body, "<h2>From your instructors</h2>");
    for c in comments {
        let paragraphs: Vec<String> = c
            .text
            .split("\n\n")
            .map(|p| format!("<p>{}</p>", html(p.trim())))
            .collect();
        let _ = writeln!(
            body,
            "<div class=\"comment\"><p class=\"muted\">About {}:</p>\n{}</div>",
            html(&c.label()),
            paragraphs.join("\n")
        );
    }
}

/// The comments' section of a student's Markdown page (nothing when none applies). The
/// instructors' text is theirs: written as they wrote it, Markdown included.
pub fn student_md(out: &mut String, comments: &[&Comment]) {
    if comments.is_empty() {
        return;
    }
    let _ = writeln!(out, "## From your instructors\n");
    for c in comments {
        let _ = writeln!(out, "*About {}:*\n\n{}\n", c.label(), c.text);
    }
}

/// The class page's section: each comment, what it is about, and whom it reached (`who` writes
/// a student's id as the page links it). Nothing when the course has no comment.
pub fn class_section(
    body: &mut String,
    comments: &Comments,
    rows: &[ClassRow],
    who: &dyn Fn(&str) -> String,
) {
    if comments.0.is_empty() {
        return;
    }
    let _ = writeln!(
        body,
        "<h2>Instructors' comments</h2>\n<table id=\"comments\">\n<thead><tr><th>About</th>\
         <th>Comment</th><th>Students</th><th>Who</th></tr></thead>\n<tbody>"
    );
    for c in &comments.0 {
        let reached: Vec<String> = rows
            .iter()
            .filter(|r| matches!(&r.standing, Standing::Graded(report) if c.applies(report)))
            .map(|r| who(&r.id))
            .collect();
        let first = c.text.lines().next().unwrap_or_default();
        let _ = writeln!(
            body,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            html(&c.label()),
            html(&super::escape::cut(first, 80)),
            reached.len(),
            reached.join(", ")
        );
    }
    let _ = writeln!(body, "</tbody>\n</table>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::Status::{Passed, Wrong};
    use crate::official::comments::About;
    use crate::official::regrade::tests::report;
    use crate::official::roster::Enrolment;

    #[test]
    fn each_student_page_gets_its_comments_and_the_class_page_counts_them() {
        let comment = Comment {
            about: About::Check {
                lesson: "lesson01".into(),
                exercise: "split".into(),
                check: "values".into(),
            },
            text: "Mind <the> axes.\n\nSee lecture 3.".into(),
        };
        let mut html_page = String::new();
        student_html(&mut html_page, &[&comment]);
        assert!(html_page.contains("About the check lesson01 / split / values:"));
        assert!(html_page.contains("<p>Mind &lt;the&gt; axes.</p>\n<p>See lecture 3.</p>"));
        let mut md = String::new();
        student_md(&mut md, &[&comment]);
        assert!(md.contains("*About the check lesson01 / split / values:*\n\nMind <the> axes."));
        let (mut none_html, mut none_md) = (String::new(), String::new());
        student_html(&mut none_html, &[]);
        student_md(&mut none_md, &[]);
        assert!(none_html.is_empty() && none_md.is_empty());

        let rows: Vec<ClassRow> = [("a", Wrong), ("b", Passed), ("c", Wrong)]
            .iter()
            .map(|(id, s)| ClassRow {
                id: (*id).into(),
                standing: Standing::Graded(Box::new(report(&[("values", *s)]))),
                enrolment: Enrolment::NoRoster,
                late: None,
            })
            .chain([ClassRow {
                id: "d".into(),
                standing: Standing::Missing,
                enrolment: Enrolment::NoRoster,
                late: None,
            }])
            .collect();
        let mut class = String::new();
        class_section(&mut class, &Comments(vec![comment]), &rows, &|id| {
            id.to_owned()
        });
        assert!(
            class.contains("<td>Mind &lt;the&gt; axes.</td><td class=\"num\">2</td><td>a, c</td>"),
            "{class}"
        );
        let mut empty = String::new();
        class_section(&mut empty, &Comments::default(), &rows, &|id| id.to_owned());
        assert!(empty.is_empty());
    }
}
