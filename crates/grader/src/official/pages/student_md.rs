//! One student's feedback in Markdown (`<id>.md`), for a forge, an e-mail or an LMS comment: what
//! the HTML page says, every text of the student's fenced or escaped.

use super::escape::{TEXT_CHARS, cut, md_fence, md_inline};
use super::feedback::{percent, shown};
use crate::official::comments::Comment;
use crate::official::late::lateness::{Late, points};
use crate::report::human::{exercise_label, next_step};
use crate::report::{Build, LessonReport, Report};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The Markdown feedback of `report`, graded for the student `id`, handed in with the lateness
/// `late`, with the instructors' `comments` that apply to them.
pub fn render(id: &str, report: &Report, late: Option<&Late>, comments: &[&Comment]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", md_inline(&report.course));
    let _ = writeln!(
        out,
        "Feedback for **{}**\n",
        md_inline(&crate::report::student_text::name(id))
    );
    let _ = writeln!(
        out,
        "**Total: {}/{} points ({}%)**\n",
        report.score,
        report.max_score,
        percent(report.score, report.max_score)
    );
    if let Some(late) = late {
        let lines = late.sentences();
        let _ = writeln!(out, "**Late work:** {}\n", md_inline(&lines[0]));
        for line in &lines[1..] {
            let _ = writeln!(out, "- {}", md_inline(line));
        }
        out.push('\n');
        if late.total() > 0.0 {
            let _ = writeln!(
                out,
                "**Total after the late penalty: {}/{} points**\n",
                points(f64::from(report.score) - late.total()),
                report.max_score
            );
        }
    }
    if !report.official {
        let _ = writeln!(
            out,
            "**Unofficial:** these course files differ from the instructors' copy, so this grade \
             is unofficial:\n"
        );
        for f in &report.listed_files() {
            let _ = writeln!(
                out,
                "- {}",
                md_inline(&crate::report::student_text::name(f))
            );
        }
        out.push('\n');
    }
    super::comments::student_md(&mut out, comments);
    let mut explained = BTreeSet::new();
    for lesson in &report.lessons {
        lesson_section(&mut out, lesson, &mut explained);
    }
    if let Some(next) = next_step(report) {
        let _ = writeln!(out, "## Next step\n\n{}", md_inline(&next.text()));
    }
    out
}

/// A lesson: its points, its compile error, its exercises' table and their failing checks; a
/// misconception is explained the first time only (`explained`: the ids already explained).
fn lesson_section<'a>(
    out: &mut String,
    lesson: &'a LessonReport,
    explained: &mut BTreeSet<&'a str>,
) {
    let _ = writeln!(
        out,
        "## {} · {} ({}/{})\n",
        md_inline(&lesson.id),
        md_inline(&lesson.title),
        lesson.score,
        lesson.max_score
    );
    if lesson.build == Build::CompileError {
        let output = lesson.compiler_output.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "✗ The crate does not compile, so none of its checks ran:\n\n{}",
            md_fence(&cut(output, TEXT_CHARS))
        );
    }
    let _ = writeln!(out, "| Exercise | Points | Status |\n|---|---:|---|");
    for ex in &lesson.exercises {
        let _ = writeln!(
            out,
            "| {} | {}/{} | {} |",
            md_inline(&ex.name),
            ex.score,
            ex.max_score,
            md_inline(&exercise_label(ex))
        );
    }
    out.push('\n');
    for ex in &lesson.exercises {
        let checks = shown(lesson, ex);
        if checks.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {}\n", md_inline(&ex.name));
        for s in checks {
            let hidden = if s.check.hidden {
                " (hidden check: its message is not shown)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "- **{}**: {}{hidden}\n",
                md_inline(&s.check.name),
                md_inline(&s.verdict)
            );
            if !s.message.is_empty() {
                out.push_str(&md_fence(&s.message));
                out.push('\n');
            }
            if let Some(b) = &s.blocked {
                let _ = writeln!(out, "{}\n", md_inline(b));
            }
            if let Some(d) = s.diagnosis.filter(|d| !explained.insert(&d.id)) {
                let _ = writeln!(
                    out,
                    "> **Misconception:** {} ({}), explained above.\n",
                    md_inline(&d.title),
                    md_inline(&d.id)
                );
            } else if let Some(d) = s.diagnosis {
                let _ = writeln!(
                    out,
                    "> **Misconception:** {} ({})\n>\n> {}\n",
                    md_inline(&d.title),
                    md_inline(&d.id),
                    md_inline(&d.explanation)
                );
            }
        }
    }
}
