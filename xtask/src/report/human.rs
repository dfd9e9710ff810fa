//! The terminal report: a table per lesson, a total, and what to do next.

use super::Report;
use crate::style::Style;
use crate::verdict::Status;
use std::fmt::Write;

fn colour(style: &Style, status: Status, text: &str) -> String {
    match status {
        Status::Passed => style.green(text),
        Status::NotStarted => style.dim(text),
        Status::Wrong => style.yellow(text),
        _ => style.red(text),
    }
}

fn mark(status: Status) -> &'static str {
    match status {
        Status::Passed => "✓",
        Status::NotStarted => "·",
        _ => "✗",
    }
}

fn percent(score: u32, max: u32) -> u32 {
    if max == 0 {
        100
    } else {
        ((f64::from(score) * 100.0) / f64::from(max)).floor() as u32
    }
}

/// The human-readable report.
pub fn render(report: &Report, style: &Style) -> String {
    let mut out = String::new();
    let what = if report.graded == super::Graded::Solutions {
        " (reference solutions)"
    } else {
        ""
    };
    let _ = writeln!(out, "{}{what}", style.bold(&report.course));
    for lesson in &report.lessons {
        let _ = writeln!(
            out,
            "\n{}  {}/{}",
            style.bold(&format!("{} · {}", lesson.id, lesson.title)),
            lesson.score,
            lesson.max_score
        );
        if let Some(err) = &lesson.compiler_output {
            let _ = writeln!(
                out,
                "  {} the crate does not compile, so none of its checks ran:",
                style.red("✗")
            );
            for line in err.lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
        let width = lesson
            .exercises
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(0);
        for ex in &lesson.exercises {
            let status = ex.status();
            let label = if status == Status::Wrong || status == Status::Passed {
                let passed = ex
                    .checks
                    .iter()
                    .filter(|c| c.status == Status::Passed)
                    .count();
                if status == Status::Passed {
                    "passed".to_owned()
                } else {
                    format!("wrong ({passed}/{} checks pass)", ex.checks.len())
                }
            } else {
                status.label().to_owned()
            };
            let _ = writeln!(
                out,
                "  {} {:width$}  {:>5}  {}",
                colour(style, status, mark(status)),
                ex.name,
                format!("{}/{}", ex.score, ex.max_score),
                colour(style, status, &label),
            );
            if status != Status::Passed
                && status != Status::CompileError
                && let Some(c) = ex.first_failure()
            {
                let mut lines = c.message.lines();
                if let Some(first) = lines.next() {
                    let _ = writeln!(
                        out,
                        "      {} {}",
                        style.dim(&format!("{}:", c.name)),
                        first
                    );
                }
                for l in lines.take(5) {
                    let _ = writeln!(out, "        {l}");
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "\n{} {}/{} points ({}%)",
        style.bold("Total:"),
        report.score,
        report.max_score,
        percent(report.score, report.max_score)
    );
    if !report.official {
        let _ = writeln!(
            out,
            "{} these course files differ from the instructors' copy, so this grade is unofficial:",
            style.yellow("Unofficial:")
        );
        for f in &report.modified_files {
            let _ = writeln!(out, "  {f}");
        }
        let _ = writeln!(
            out,
            "  Restore them (e.g. `git checkout -- <file>`) for an official grade."
        );
    }
    if let Some(ex) = report.first_unfinished() {
        let _ = writeln!(
            out,
            "Next: work on `{}`; stuck? `cargo xtask hint {}`",
            ex.name, ex.name
        );
    } else if report.max_score > 0 && report.official {
        let _ = writeln!(out, "{}", style.green("Full marks."));
    } else if report.max_score > 0 {
        let _ = writeln!(
            out,
            "Every check passes, but against modified course files: not full marks."
        );
    }
    out
}
