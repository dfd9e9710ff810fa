//! One student's feedback page in HTML (`<id>.html`): the total, each lesson's and exercise's
//! points, every failing check with its message, blame and misconception, compile errors, and the
//! next step.

use super::escape::{TEXT_CHARS, cut, html};
use super::feedback::{Shown, percent, shown};
use super::layout::document;
use crate::judge::verdict::Status;
use crate::official::comments::Comment;
use crate::report::human::{exercise_label, next_step};
use crate::report::{Build, LessonReport, Report};
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

/// The page of `report`, graded for the student `id`, with the instructors' `comments` that
/// apply to them.
pub fn render(id: &str, report: &Report, comments: &[&Comment]) -> String {
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
    if !report.official {
        unofficial(&mut body, report);
    }
    super::comments::student_html(&mut body, comments);
    for lesson in &report.lessons {
        lesson_section(&mut body, lesson);
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

/// The notice of an unofficial grade, with the files that differ.
fn unofficial(body: &mut String, report: &Report) {
    let _ = writeln!(
        body,
        "<div class=\"notice\"><p><strong>Unofficial:</strong> these course files differ from \
         the instructors' copy, so this grade is unofficial:</p>\n<ul>"
    );
    for f in &report.modified_files {
        let _ = writeln!(
            body,
            "<li><code>{}</code></li>",
            html(&crate::report::student_text::name(f))
        );
    }
    let _ = writeln!(body, "</ul></div>");
}

/// A lesson: its points, its compile error, its exercises' table and their failing checks.
fn lesson_section(body: &mut String, lesson: &LessonReport) {
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
            check(body, &s);
        }
    }
}

/// One failing check: verdict, message, blame and misconception.
fn check(body: &mut String, s: &Shown) {
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
        let _ = writeln!(
            body,
            "<div class=\"diagnosis\"><p><strong>Misconception:</strong> {} \
             <span class=\"muted\">({})</span></p>\n<p>{}</p></div>",
            html(&d.title),
            html(&d.id),
            html(&d.explanation)
        );
    }
    let _ = writeln!(body, "</div>");
}
