//! JUnit XML: one `testsuite` per lesson, one `testcase` per check.

use super::Report;
use crate::verdict::Status;
use std::fmt::Write;

/// Escapes text for XML attributes and content.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

/// The report as JUnit XML.
pub fn render(report: &Report) -> String {
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let total: usize = report
        .lessons
        .iter()
        .map(|l| l.exercises.iter().map(|e| e.checks.len()).sum::<usize>())
        .sum();
    let failures: usize = report
        .lessons
        .iter()
        .flat_map(|l| &l.exercises)
        .flat_map(|e| &e.checks)
        .filter(|c| c.status != Status::Passed)
        .count();
    let _ = writeln!(
        x,
        "<testsuites name=\"course\" tests=\"{total}\" failures=\"{failures}\" time=\"{:.3}\">",
        report.execution_time
    );
    for lesson in &report.lessons {
        let n: usize = lesson.exercises.iter().map(|e| e.checks.len()).sum();
        let f = lesson
            .exercises
            .iter()
            .flat_map(|e| &e.checks)
            .filter(|c| c.status != Status::Passed)
            .count();
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{n}\" failures=\"{f}\">",
            escape(&lesson.id)
        );
        for ex in &lesson.exercises {
            for c in &ex.checks {
                let _ = write!(
                    x,
                    "    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{:.3}\"",
                    escape(&lesson.id),
                    escape(&ex.name),
                    escape(&c.name),
                    c.duration_ms as f64 / 1000.0
                );
                if c.status == Status::Passed {
                    x.push_str("/>\n");
                } else {
                    let detail = match (&lesson.compiler_output, c.status) {
                        (Some(out), Status::CompileError) => out.clone(),
                        _ => c.message.clone(),
                    };
                    let _ = writeln!(
                        x,
                        ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>",
                        c.status,
                        escape(c.message.lines().next().unwrap_or("")),
                        escape(&detail)
                    );
                }
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            super::escape("a<b & \"c\"\u{1b}"),
            "a&lt;b &amp; &quot;c&quot;"
        );
    }
}
