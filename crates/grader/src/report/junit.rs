//! JUnit XML, in the dialect of the Jenkins xUnit plugin's `junit-10.xsd` (the schema most JUnit
//! consumers accept): a `testsuites` root with `tests`, `failures`, `errors` and `time`; one
//! `testsuite` per lesson with `name`, `tests`, `failures`, `errors`, `skipped`, `time` and `file`
//! (the lesson's checks file); one `testcase` per check. A wrong answer (`wrong`, `panicked`,
//! `not_started`) is a `failure`; a check that could not run to a verdict on the code (`crashed`,
//! `timed_out`, `wrote_too_much`, `exited_early`, `compile_error`) is an `error`; both carry `type` = the verdict and
//! `message` = the first line of the explanation, with the whole explanation (or the compiler's
//! error) as text.
//!
//! `junit-10.xsd` allows `file` on `testsuite` but not on `testcase`, so each check's file is given
//! by its suite.

use super::{CheckReport, ExerciseReport, LessonReport, Report};
use crate::course::Course;
use crate::judge::verdict::Status;
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};

/// True for verdicts reported as `error` (the check could not run to a verdict on the code).
pub fn is_error(status: Status) -> bool {
    matches!(
        status,
        Status::Crashed
            | Status::TimedOut
            | Status::WroteTooMuch
            | Status::ExitedEarly
            | Status::CompileError
    )
}

fn secs(ms: u64) -> String {
    format!("{:.3}", ms as f64 / 1000.0)
}

/// The report as JUnit XML; `course` gives each lesson's checks file.
pub fn render(report: &Report, course: &Course) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    fn checks(l: &LessonReport) -> Vec<(&ExerciseReport, &CheckReport)> {
        l.exercises
            .iter()
            .flat_map(|e| e.checks.iter().map(move |c| (e, c)))
            .collect()
    }
    let count = |f: &dyn Fn(Status) -> bool| {
        report
            .lessons
            .iter()
            .flat_map(checks)
            .filter(|(_, c)| f(c.status))
            .count()
    };
    let total = count(&|_| true);
    let errors = count(&|s| is_error(s));
    let failures = count(&|s| s != Status::Passed && !is_error(s));
    let _ = w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let mut root = BytesStart::new("testsuites");
    root.push_attribute(("name", report.course.as_str()));
    root.push_attribute(("tests", total.to_string().as_str()));
    root.push_attribute(("failures", failures.to_string().as_str()));
    root.push_attribute(("errors", errors.to_string().as_str()));
    root.push_attribute(("time", format!("{:.3}", report.execution_time).as_str()));
    let _ = w.write_event(Event::Start(root));
    for lesson in &report.lessons {
        let cs = checks(lesson);
        let n = |f: &dyn Fn(Status) -> bool| cs.iter().filter(|(_, c)| f(c.status)).count();
        let time: u64 = cs.iter().map(|(_, c)| c.duration_ms).sum();
        let file = course
            .find_lesson(&lesson.id)
            .map(|l| format!("exercises/{}/tests/checks.rs", l.dir))
            .unwrap_or_default();
        let mut suite = BytesStart::new("testsuite");
        suite.push_attribute(("name", lesson.id.as_str()));
        suite.push_attribute(("tests", cs.len().to_string().as_str()));
        suite.push_attribute((
            "failures",
            n(&|s| s != Status::Passed && !is_error(s))
                .to_string()
                .as_str(),
        ));
        suite.push_attribute(("errors", n(&|s| is_error(s)).to_string().as_str()));
        suite.push_attribute(("skipped", "0"));
        suite.push_attribute(("time", secs(time).as_str()));
        suite.push_attribute(("file", file.as_str()));
        let _ = w.write_event(Event::Start(suite));
        for (ex, c) in cs {
            let mut case = BytesStart::new("testcase");
            case.push_attribute(("name", c.name.as_str()));
            case.push_attribute(("classname", format!("{}.{}", lesson.id, ex.name).as_str()));
            case.push_attribute(("time", secs(c.duration_ms).as_str()));
            if c.status == Status::Passed {
                let _ = w.write_event(Event::Empty(case));
                continue;
            }
            let _ = w.write_event(Event::Start(case));
            let tag = if is_error(c.status) {
                "error"
            } else {
                "failure"
            };
            let stubbed = lesson.build == super::Build::Stubbed;
            let detail = match (&lesson.compiler_output, c.status) {
                (Some(out), Status::CompileError) if !stubbed => out.clone(),
                _ => c.explanation(),
            };
            let first = c.message.lines().next().unwrap_or(c.status.label());
            let mut el = BytesStart::new(tag);
            el.push_attribute(("type", c.status.to_string().as_str()));
            el.push_attribute(("message", clean(first).as_str()));
            let _ = w.write_event(Event::Start(el));
            let _ = w.write_event(Event::Text(BytesText::new(&clean(&detail))));
            let _ = w.write_event(Event::End(BytesEnd::new(tag)));
            let _ = w.write_event(Event::End(BytesEnd::new("testcase")));
        }
        let _ = w.write_event(Event::End(BytesEnd::new("testsuite")));
    }
    let _ = w.write_event(Event::End(BytesEnd::new("testsuites")));
    let mut out = String::from_utf8(w.into_inner()).expect("utf-8");
    out.push('\n');
    out
}

/// Drops the characters XML 1.0 cannot hold (control characters other than tab and newlines).
pub fn clean(text: &str) -> String {
    text.chars()
        .filter(|&c| (c as u32) >= 0x20 || matches!(c, '\n' | '\t' | '\r'))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_are_dropped() {
        assert_eq!(super::clean("a<b\u{1b}[31m\tc"), "a<b[31m\tc");
    }
}
