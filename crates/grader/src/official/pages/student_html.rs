//! One student's feedback page in HTML (`<id>.html`): the total, each lesson's and exercise's
//! points, every failing check with its message, blame and misconception, compile errors, and the
//! next step. A misconception is explained under the first check that matches it; later ones link
//! back to that explanation.

use super::escape::{TEXT_CHARS, cut, href, html};
use super::feedback::{Shown, percent, shown};
use super::layout::document;
use crate::judge::verdict::Status;
use crate::official::comments::Comment;
use crate::official::late::lateness::{Late, points};
use crate::report::human::{exercise_label, next_step};
use crate::report::{Build, Diagnosis, LessonReport, Report};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The grader's own words (a verdict, the next step) as HTML: escaped, and each `name` between
/// backticks set as code, as the terminal report quotes names.
fn words(text: &str) -> String {
    html(text)
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{part}</code>")
            } else {
                part.to_owned()
            }
        })
        .collect()
}

/// The class of a status's colour.
fn tone(status: Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::NotStarted => "muted",
        Status::Wrong => "wrong",
        _ => "failed",
    }
}

/// The page of `report`, graded for the student `id`, handed in with the lateness `late`,
/// with the instructors' `comments` that apply to them.
pub fn render(id: &str, report: &Report, late: Option<&Late>, comments: &[&Comment]) -> String {
    let who = crate::report::student_text::name(id);
    let mut body = String::new();
    let _ = writeln!(body, "<h1>{}</h1>", html(&report.course));
    let _ = writeln!(
        body,
        "<p>Feedback for <strong class=\"student\">{}</strong></p>",
        html(&who)
    );
    let _ = writeln!(
        body,
        "<p class=\"total\">Total: <strong>{}/{}</strong> points ({}%)</p>",
        report.score,
        report.max_score,
        percent(report.score, report.max_score)
    );
    if let Some(late) = late {
        late_notice(&mut body, report, late);
    }
    if !report.official {
        unofficial(&mut body, report);
    }
    super::comments::student_html(&mut body, comments);
    let mut explained = BTreeSet::new();
    for lesson in &report.lessons {
        lesson_section(&mut body, lesson, &mut explained);
    }
    if let Some(next) = next_step(report) {
        let _ = writeln!(
            body,
            "<h2>Next step</h2>\n<p class=\"next\">{}</p>",
            words(&next.text())
        );
    }
    document(&format!("{} · {who}", report.course), &body)
}

/// When the submission was handed in, what each late lesson cost, and the total after it.
fn late_notice(body: &mut String, report: &Report, late: &Late) {
    let _ = writeln!(body, "<div class=\"late\" id=\"late\">");
    let lines = late.sentences();
    let _ = writeln!(
        body,
        "<p><strong>Late work:</strong> {}</p>\n<ul>",
        html(&lines[0])
    );
    for line in &lines[1..] {
        let _ = writeln!(body, "<li>{}</li>", html(line));
    }
    let _ = writeln!(body, "</ul>");
    if late.total() > 0.0 {
        let _ = writeln!(
            body,
            "<p class=\"total\">Total after the late penalty: <strong>{}/{}</strong> points</p>",
            points(f64::from(report.score) - late.total()),
            report.max_score
        );
    }
    let _ = writeln!(body, "</div>");
}

/// The notice of an unofficial grade, with the files that differ.
fn unofficial(body: &mut String, report: &Report) {
    let _ = writeln!(
        body,
        "<div class=\"notice\"><p><strong>Unofficial:</strong> these course files differ from \
         the instructors' copy, so this grade is unofficial:</p>\n<ul>"
    );
    for f in &report.listed_files() {
        let _ = writeln!(
            body,
            "<li><code>{}</code></li>",
            html(&crate::report::student_text::name(f))
        );
    }
    let _ = writeln!(body, "</ul></div>");
}

/// A lesson: its points, its compile error, its exercises' table and their failing checks.
fn lesson_section<'a>(
    body: &mut String,
    lesson: &'a LessonReport,
    explained: &mut BTreeSet<&'a str>,
) {
    let _ = writeln!(
        body,
        "<h2>{} · {} <span class=\"muted\">{}/{}</span></h2>",
        html(&lesson.id),
        html(&lesson.title),
        lesson.score,
        lesson.max_score
    );
    if lesson.build == Build::CompileError {
        let _ = writeln!(
            body,
            "<p class=\"failed\">✗ The crate does not compile, so none of its checks ran:</p>"
        );
        let output = lesson.compiler_output.as_deref().unwrap_or("");
        let _ = writeln!(
            body,
            "<pre class=\"compiler\">{}</pre>",
            html(&cut(output, TEXT_CHARS))
        );
    }
    let _ = writeln!(
        body,
        "<table>\n<thead><tr><th>Exercise</th><th>Points</th><th>Status</th></tr></thead>\n<tbody>"
    );
    for ex in &lesson.exercises {
        let status = ex.status();
        let _ = writeln!(
            body,
            "<tr><td><code>{}</code></td><td class=\"num\">{}/{}</td><td class=\"{}\">{}</td></tr>",
            html(&ex.name),
            ex.score,
            ex.max_score,
            tone(status),
            words(&exercise_label(ex))
        );
    }
    let _ = writeln!(body, "</tbody>\n</table>");
    for ex in &lesson.exercises {
        let checks = shown(lesson, ex);
        if checks.is_empty() {
            continue;
        }
        let _ = writeln!(body, "<h3><code>{}</code></h3>", html(&ex.name));
        for s in checks {
            check(body, &s, explained);
        }
    }
}

/// One failing check: verdict, message, blame and misconception (explained the first time, else
/// linked to where it is explained; `explained` holds the ids already explained on the page).
fn check<'a>(body: &mut String, s: &Shown<'a>, explained: &mut BTreeSet<&'a str>) {
    let hidden = if s.check.hidden {
        " <span class=\"muted\">(hidden check: its message is not shown)</span>"
    } else {
        ""
    };
    let _ = writeln!(
        body,
        "<div class=\"check\">\n<p><code>{}</code>: <span class=\"{}\">{}</span>{hidden}</p>",
        html(&s.check.name),
        tone(s.check.status),
        words(&s.verdict)
    );
    if !s.message.is_empty() {
        let _ = writeln!(body, "<pre class=\"message\">{}</pre>", html(&s.message));
    }
    if let Some(b) = &s.blocked {
        let _ = writeln!(body, "<p class=\"blocked\">{}</p>", words(b));
    }
    if let Some(d) = s.diagnosis {
        diagnosis(body, d, explained.insert(&d.id));
    }
    let _ = writeln!(body, "</div>");
}

/// A misconception: its explanation, anchored, when `first` on the page; else a line linking to
/// it.
fn diagnosis(body: &mut String, d: &Diagnosis, first: bool) {
    let anchor = format!("misconception-{}", href(&d.id));
    if first {
        let _ = writeln!(
            body,
            "<div class=\"diagnosis\" id=\"{anchor}\"><p><strong>Misconception:</strong> {} \
             <span class=\"muted\">({})</span></p>\n<p>{}</p></div>",
            html(&d.title),
            html(&d.id),
            html(&d.explanation)
        );
    } else {
        let _ = writeln!(
            body,
            "<p class=\"diagnosis-ref\"><strong>Misconception:</strong> <a href=\"#{anchor}\">{}</a> \
             <span class=\"muted\">({}, explained above)</span></p>",
            html(&d.title),
            html(&d.id)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::official::pages::fixture::{check, report};

    #[test]
    fn a_misconception_is_explained_once_and_referred_back_to() {
        let r = report(
            Build::Ok,
            vec![
                check(Status::Wrong, Some("m1")),
                check(Status::Wrong, Some("m2")),
                check(Status::Wrong, Some("m1")),
                check(Status::Wrong, Some("m1")),
            ],
        );
        let page = render("ann", &r, None, &[]);
        assert_eq!(page.matches("explanation of m1").count(), 1, "{page}");
        assert_eq!(page.matches("explanation of m2").count(), 1, "{page}");
        assert_eq!(page.matches("id=\"misconception-m1\"").count(), 1);
        assert_eq!(page.matches("href=\"#misconception-m1\"").count(), 2);
        assert!(!page.contains("href=\"#misconception-m2\""));
        // The explanation comes before the links to it.
        assert!(page.find("id=\"misconception-m1\"") < page.find("href=\"#misconception-m1\""));
        let md = crate::official::pages::student_md::render("ann", &r, None, &[]);
        assert_eq!(md.matches("explanation of m1").count(), 1, "{md}");
        assert_eq!(md.matches("explained above").count(), 2, "{md}");
    }

    #[test]
    fn a_late_submission_says_when_what_it_cost_and_the_total_after_it() {
        use crate::official::late::{curve::Curve, lateness::LessonLate};
        let mut r = report(Build::Ok, vec![check(Status::Passed, None)]);
        r.score = 10;
        r.max_score = 10;
        let late = Late {
            submitted_at: "2026-12-21T00:00:00+01:00".into(),
            lessons: vec![LessonLate {
                lesson: "lesson01".into(),
                deadline: "2026-12-20T23:59:00+01:00".into(),
                seconds: 60,
                deduction: 1.5,
            }],
            curve: Curve {
                deduction: 15.0,
                interval: 86_400,
                floor: 50.0,
            },
        };
        let page = render("ann", &r, Some(&late), &[]);
        assert!(
            page.contains("Handed in at 2026-12-21T00:00:00+01:00"),
            "{page}"
        );
        assert!(
            page.contains("lesson01: 1 day(s) after the deadline"),
            "{page}"
        );
        assert!(
            page.contains("after the late penalty: <strong>8.5/10</strong>"),
            "{page}"
        );
        let md = crate::official::pages::student_md::render("ann", &r, Some(&late), &[]);
        assert!(
            md.contains("**Total after the late penalty: 8.5/10 points**"),
            "{md}"
        );
        assert!(!render("ann", &r, None, &[]).contains("Late work"));
    }
}
