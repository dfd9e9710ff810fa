//! The terminal report: a table per lesson, a total, and what to do next.

use super::readable::{printable, readable};
use super::{CheckReport, ExerciseReport, Report};
use crate::judge::verdict::Status;
use crate::report::style::Style;
use std::collections::HashSet;
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

/// How much of each failure the table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Every failing check with its verdict, full message, blame and diagnosis.
    #[default]
    Full,
    /// One line per exercise and the first failing check's message (`--brief`).
    Brief,
}

/// The exercise's label in the table: its verdict, or whom it is blocked by.
///
/// An exercise not started, or whose crate does not compile, says so even when the exercises it
/// needs fail too: its own code is what to write (or fix) first, as its checks' messages say.
pub fn exercise_label(ex: &ExerciseReport) -> String {
    let status = ex.status();
    if let Some(blocker) = ex.blocked_by()
        && !matches!(status, Status::NotStarted | Status::CompileError)
    {
        return format!("blocked: fix `{blocker}` first");
    }
    match status {
        Status::Passed => "passed".to_owned(),
        Status::Wrong => {
            let passed = ex
                .checks
                .iter()
                .filter(|c| c.status == Status::Passed)
                .count();
            format!("wrong ({passed}/{} checks pass)", ex.checks.len())
        }
        other => other.label().to_owned(),
    }
}

/// The lines under a failing exercise: each failing check (or, brief, the first one).
///
/// A misconception's explanation is printed the first time it is named (`explained` remembers).
fn failures(
    out: &mut String,
    ex: &ExerciseReport,
    style: &Style,
    detail: Detail,
    explained: &mut HashSet<String>,
) {
    let failing: Vec<&CheckReport> = ex
        .checks
        .iter()
        .filter(|c| c.status != Status::Passed)
        .collect();
    // Not started at all: one line says it, as in the brief form.
    let brief = detail == Detail::Brief || ex.status() == Status::NotStarted;
    let shown: Vec<&CheckReport> = if brief {
        failing.into_iter().take(1).collect()
    } else {
        failing
    };
    for c in shown {
        let message = readable(&c.message);
        let mut lines = message.lines();
        let first = lines.next().unwrap_or("");
        if brief {
            let _ = writeln!(out, "      {} {first}", style.dim(&format!("{}:", c.name)));
            for l in lines.take(5) {
                let _ = writeln!(out, "        {l}");
            }
            continue;
        }
        let verdict = match &c.blocked_by {
            Some(b) => format!("{}, blocked by `{b}`", c.status.label()),
            None => c.status.label().to_owned(),
        };
        let _ = writeln!(
            out,
            "      {} {}",
            style.dim(&format!("{}:", c.name)),
            colour(style, c.status, &verdict)
        );
        if !first.is_empty() {
            let _ = writeln!(out, "        {first}");
        }
        for l in lines {
            let _ = writeln!(out, "        {l}");
        }
        if let Some(line) = c.inputs_line() {
            let _ = writeln!(out, "        {line}");
        }
        if let Some(d) = &c.diagnosis {
            if explained.insert(d.id.clone()) {
                let _ = writeln!(out, "        {} {}", style.bold("Misconception:"), d.title);
                for l in wrap(&d.explanation, 84) {
                    let _ = writeln!(out, "          {l}");
                }
            } else {
                let _ = writeln!(
                    out,
                    "        {} {} (explained above)",
                    style.bold("Misconception:"),
                    d.title
                );
            }
        }
    }
}

/// `text` in lines of at most `width` characters (words are never split).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// What the student should do next, as the report's last line says it (the terminal report and
/// the feedback pages, `crate::official::pages`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextStep {
    /// A lesson (its id) does not compile: nothing else of it can be graded.
    FixCompileError(String),
    /// An exercise (its name) does not compile: it was graded as its stub, the rest of its
    /// lesson as written.
    FixCompileErrorIn(String),
    /// The first unfinished exercise, or the one it is blocked by.
    WorkOn(String),
    /// Every check passes and the grade is official.
    FullMarks,
    /// Every check passes, against modified course files.
    FullButUnofficial,
}

impl NextStep {
    /// The step in words.
    pub fn text(&self) -> String {
        match self {
            NextStep::FixCompileError(lesson) => format!(
                "Next: fix the compile error in {} (shown above), then grade again",
                lesson_name(lesson)
            ),
            NextStep::FixCompileErrorIn(name) => {
                format!("Next: fix the compile error in `{name}` (shown above), then grade again")
            }
            NextStep::WorkOn(name) => {
                format!("Next: work on `{name}`; stuck? `cargo xtask hint {name}`")
            }
            NextStep::FullMarks => "Full marks.".to_owned(),
            NextStep::FullButUnofficial => {
                "Every check passes, but against modified course files: not full marks.".to_owned()
            }
        }
    }
}

/// The report's next step: the first unfinished exercise in course order (its lesson's compile
/// error, or what it is blocked by, comes first), else full marks; none when nothing was graded.
pub fn next_step(report: &Report) -> Option<NextStep> {
    if let Some((lesson, ex)) = report.first_unfinished() {
        let stubbed = lesson
            .exercises
            .iter()
            .find(|e| e.status() == Status::CompileError)
            .map(|e| &e.name)
            .or(lesson.stubbed.first())
            .filter(|_| lesson.build == super::Build::Stubbed);
        Some(if lesson.build == super::Build::CompileError {
            NextStep::FixCompileError(lesson.id.clone())
        } else if let Some(name) = stubbed {
            NextStep::FixCompileErrorIn(name.clone())
        } else {
            NextStep::WorkOn(ex.blocked_by().unwrap_or(&ex.name).to_owned())
        })
    } else if report.max_score > 0 && report.official {
        Some(NextStep::FullMarks)
    } else if report.max_score > 0 {
        Some(NextStep::FullButUnofficial)
    } else {
        None
    }
}

/// After a grade of the student's lessons at full marks, the line that says where to go next:
/// the lesson after the last one graded, with where its text is and the command that grades it,
/// or the end of the course. `None` when the grade is not at full marks.
pub fn next_lesson(course: &crate::course::Course, report: &Report) -> Option<String> {
    if next_step(report) != Some(NextStep::FullMarks) || report.graded != super::Graded::Exercises {
        return None;
    }
    let last = report.lessons.last()?;
    let at = course.lessons.iter().position(|l| l.id == last.id)?;
    Some(match course.lessons.get(at + 1) {
        Some(next) => {
            let number = lesson_name(&next.id);
            let key = number.strip_prefix("lesson ").unwrap_or(&next.id);
            format!(
                "Next: {number}, {}: read exercises/{}/src/lib.rs (or `cargo doc --open -p {}`), \
                 then `cargo xtask grade {key}`\n",
                next.title, next.dir, next.id
            )
        }
        None if report.lessons.len() == course.lessons.len() => {
            "That was the last lesson: the whole course is at full marks.\n".to_owned()
        }
        None => {
            "That was the course's last lesson: `cargo xtask grade` grades them all.\n".to_owned()
        }
    })
}

/// The lesson's number for people (`lesson02` → `2`), else its id.
fn lesson_name(id: &str) -> String {
    match id
        .strip_prefix("lesson")
        .and_then(|n| n.parse::<u32>().ok())
    {
        Some(n) => format!("lesson {n}"),
        None => id.to_owned(),
    }
}

/// The line under a lesson's title saying what its build left out, with the compiler's error
/// when the whole lesson does not compile.
fn lesson_build(out: &mut String, lesson: &super::LessonReport, style: &Style) {
    if lesson.build == super::Build::Stubbed {
        let names: Vec<String> = lesson.stubbed.iter().map(|n| format!("`{n}`")).collect();
        let (does, its, stub, error) = match names.len() {
            1 => ("does", "its", "stub", "error is"),
            _ => ("do", "their", "stubs", "errors are"),
        };
        let _ = writeln!(
            out,
            "  {} {} {does} not compile: graded as {its} handed-out {stub} ({its} {error} \
             below), the lesson's other exercises as written",
            style.red("✗"),
            names.join(", ")
        );
    } else if let Some(err) = &lesson.compiler_output {
        let _ = writeln!(
            out,
            "  {} the crate does not compile, so none of its checks ran:",
            style.red("✗")
        );
        for line in printable(err).lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
}

/// The human-readable report.
pub fn render(report: &Report, style: &Style, detail: Detail) -> String {
    render_for(report, style, detail, None)
}

/// The human-readable report of a grade run at a place where `restore` gets the handed-out course
/// files back, which an unofficial grade's notice says (`None`: it names the files only).
pub fn render_for(
    report: &Report,
    style: &Style,
    detail: Detail,
    restore: Option<crate::course::pristine::Restore>,
) -> String {
    let mut out = String::new();
    let what = if report.graded == super::Graded::Solutions {
        " (reference solutions)"
    } else {
        ""
    };
    let _ = writeln!(out, "{}{what}", style.bold(&report.course));
    if let Some(student) = &report.student {
        let _ = writeln!(
            out,
            "Student: {}",
            crate::report::student_text::name(student)
        );
    }
    let mut explained = HashSet::new();
    for lesson in &report.lessons {
        let _ = writeln!(
            out,
            "\n{}  {}/{}",
            style.bold(&format!("{} · {}", lesson.id, lesson.title)),
            lesson.score,
            lesson.max_score
        );
        lesson_build(&mut out, lesson, style);
        let width = lesson
            .exercises
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(0);
        for ex in &lesson.exercises {
            let status = ex.status();
            let _ = writeln!(
                out,
                "  {} {:width$}  {:>5}  {}",
                colour(style, status, mark(status)),
                ex.name,
                format!("{}/{}", ex.score, ex.max_score),
                colour(style, status, &exercise_label(ex)),
            );
            if status != Status::Passed && status != Status::CompileError {
                failures(&mut out, ex, style, detail, &mut explained);
            } else if status == Status::CompileError && lesson.build == super::Build::Stubbed {
                // Every check of a stubbed exercise says the same: its first error.
                let message = ex.checks.first().map_or("", |c| c.message.as_str());
                for line in printable(message).lines() {
                    let _ = writeln!(out, "      {line}");
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
        for f in &report.listed_files() {
            let _ = writeln!(out, "  {}", crate::report::student_text::name(f));
        }
        if let Some(restore) = restore {
            let _ = writeln!(out, "  {}", restore.text());
        }
    }
    match next_step(report) {
        Some(NextStep::FullMarks) => {
            let _ = writeln!(out, "{}", style.green(&NextStep::FullMarks.text()));
        }
        Some(next) => {
            let _ = writeln!(out, "{}", next.text());
        }
        None => {}
    }
    if report.graded == super::Graded::Submission {
        out.push_str(&submission_changes(report));
    }
    out
}

/// The end of a submission's human report: the files the student changed outside their sources
/// (`Report::listed_files`), each name made inert, with why they did not count; empty when the
/// student changed none.
fn submission_changes(report: &Report) -> String {
    let files = report.listed_files();
    if files.is_empty() {
        return String::new();
    }
    let mut text = "\nFiles the student changed outside exercises/*/src (not used: graded with \
                    the instructors' copies):\n"
        .to_owned();
    for f in &files {
        let _ = writeln!(text, "  {}", crate::report::student_text::name(f));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Build, Graded, LessonReport};

    fn check(name: &str, status: Status, message: &str) -> CheckReport {
        CheckReport {
            name: name.into(),
            status,
            points: if status == Status::Passed { 4 } else { 0 },
            max_points: 4,
            message: message.into(),
            duration_ms: 1,
            hidden: false,
            blocked_by: None,
            diagnosis: None,
            variant: None,
        }
    }

    fn exercise(name: &str, checks: Vec<CheckReport>) -> ExerciseReport {
        ExerciseReport {
            name: name.into(),
            score: checks.iter().map(|c| c.points).sum(),
            max_score: 4 * checks.len() as u32,
            checks,
        }
    }

    /// Lesson 2 with `head_size` passing, `split_heads` not started and `merge_heads` stubbed out.
    fn stubbed(build: Build) -> Report {
        let error = "`merge_heads` does not compile, so it was graded as its handed-out stub\n\
                     error[E0308]: mismatched types\n  --> exercises.rs:40:22";
        let lesson = LessonReport {
            id: "lesson02".into(),
            title: "Split".into(),
            build,
            compiler_output: Some("error[E0308]: mismatched types".into()),
            stubbed: vec!["merge_heads".into()],
            score: 4,
            max_score: 12,
            exercises: vec![
                exercise("head_size", vec![check("size", Status::Passed, "")]),
                exercise(
                    "split_heads",
                    vec![check("split", Status::NotStarted, "implement it")],
                ),
                exercise(
                    "merge_heads",
                    vec![check("merge", Status::CompileError, error)],
                ),
            ],
        };
        Report {
            schema_version: crate::report::SCHEMA_VERSION,
            course: "c".into(),
            graded: Graded::Exercises,
            official: true,
            isolation: crate::run::Isolation::None,
            student: None,
            sources_sha256: None,
            modified_files: vec![],
            changed_while_grading: vec![],
            score: 4,
            max_score: 12,
            execution_time: 0.0,
            lessons: vec![lesson],
        }
    }

    #[test]
    fn a_stubbed_exercise_is_named_with_its_error_and_is_next() {
        let report = stubbed(Build::Stubbed);
        let table = render(&report, &Style::plain(), Detail::Full);
        assert!(
            table.contains(
                "✗ `merge_heads` does not compile: graded as its handed-out stub (its error is \
                 below), the lesson's other exercises as written"
            ),
            "{table}"
        );
        let row = table
            .find("merge_heads    0/4  does not compile")
            .expect(&table);
        assert!(
            table[row..].contains("error[E0308]: mismatched types"),
            "{table}"
        );
        assert!(table.contains("head_size      4/4  passed"), "{table}");
        // The broken function comes before the first exercise not started.
        assert_eq!(
            next_step(&report),
            Some(NextStep::FixCompileErrorIn("merge_heads".into()))
        );
        assert!(table.ends_with(
            "Next: fix the compile error in `merge_heads` (shown above), then grade again\n"
        ));
        let json = report.to_json();
        assert!(json.contains("\"build\": \"stubbed\""), "{json}");
        assert!(
            json.contains("\"stubbed\": [\n        \"merge_heads\"\n      ]"),
            "{json}"
        );
        // Gradescope and JUnit carry the function's own error in its checks, and no lesson-wide
        // "none of its checks ran".
        let gradescope = crate::report::gradescope::render(&report);
        assert!(
            !gradescope.contains("none of its checks ran"),
            "{gradescope}"
        );
        assert!(
            gradescope.contains("compile_error: `merge_heads` does not compile"),
            "{gradescope}"
        );
        #[cfg(feature = "instructor")]
        {
            let junit = crate::report::junit::render(&report, &crate::course::fixture());
            assert!(junit.contains("exercises.rs:40:22"), "{junit}");
        }
        // A lesson that does not compile at all still points at the lesson.
        let whole = stubbed(Build::CompileError);
        assert_eq!(
            next_step(&whole),
            Some(NextStep::FixCompileError("lesson02".into()))
        );
        assert!(!render(&whole, &Style::plain(), Detail::Full).contains("handed-out stub"));
    }

    /// Every message under the table is true where the student is: the way back to the
    /// handed-out course files, a row's label beside its checks' messages, the next lesson.
    #[test]
    fn the_notice_labels_and_next_steps_agree_with_the_students_situation() {
        use crate::course::pristine::Restore;
        let mut report = stubbed(Build::Stubbed);
        report.official = false;
        report.modified_files = vec!["exercises/d/tests/snapshots/a.snap (changed)".into()];
        let table = |restore| render_for(&report, &Style::plain(), Detail::Full, restore);
        let handout = table(Some(Restore::Reset));
        assert!(handout.contains("Unofficial:"), "{handout}");
        assert!(
            handout.contains("`cargo xtask reset --course-files`"),
            "{handout}"
        );
        assert!(!handout.contains("git"), "{handout}");
        assert!(table(Some(Restore::Git)).contains("`git checkout -- <file>`"));
        assert!(!table(None).contains("git"));

        // A row not started (or not compiling) says so, not "blocked", beside a message that
        // says to implement it.
        let mut blocked = check("scores", Status::NotStarted, "implement `scores` next");
        blocked.blocked_by = Some("fold".into());
        let ex = exercise("scores", vec![blocked.clone()]);
        assert_eq!(exercise_label(&ex), "not started");
        blocked.status = Status::CompileError;
        assert_eq!(
            exercise_label(&exercise("scores", vec![blocked.clone()])),
            "does not compile"
        );
        blocked.status = Status::Wrong;
        assert_eq!(
            exercise_label(&exercise("scores", vec![blocked])),
            "blocked: fix `fold` first"
        );

        // Full marks on a lesson names the next one and the command; the last lesson says so.
        let course: crate::course::Course = toml::from_str(
            "[course]\ntitle = \"t\"\n\
             [[lessons]]\nid = \"lesson02\"\ndir = \"lesson02-split\"\ntitle = \"Split\"\n\
             [[lessons]]\nid = \"lesson03\"\ndir = \"lesson03-par\"\ntitle = \"Parallel\"\n",
        )
        .unwrap();
        let mut full = stubbed(Build::Ok);
        for ex in &mut full.lessons[0].exercises {
            for c in &mut ex.checks {
                c.status = Status::Passed;
            }
        }
        full.score = full.max_score;
        full.lessons[0].score = full.max_score;
        for ex in &mut full.lessons[0].exercises {
            ex.score = ex.max_score;
        }
        assert!(render(&full, &Style::plain(), Detail::Full).ends_with("Full marks.\n"));
        assert_eq!(
            next_lesson(&course, &full).as_deref(),
            Some(
                "Next: lesson 3, Parallel: read exercises/lesson03-par/src/lib.rs (or `cargo doc \
                 --open -p lesson03`), then `cargo xtask grade 3`\n"
            )
        );
        full.lessons[0].id = "lesson03".into();
        assert!(next_lesson(&course, &full).unwrap().contains("last lesson"));
        full.official = false;
        assert_eq!(next_lesson(&course, &full), None);
        assert_eq!(next_lesson(&course, &stubbed(Build::Ok)), None);
    }

    /// A submission's human report ends with the files changed outside the sources, inert, and
    /// says they were not used; with none changed it adds nothing.
    #[test]
    fn a_submissions_changed_files_are_listed_as_not_used() {
        let mut report = stubbed(Build::Ok);
        report.graded = Graded::Submission;
        assert_eq!(submission_changes(&report), "");
        let snap = "exercises/d/tests/snapshots/a.snap (changed)";
        report.modified_files = vec!["NOTES\u{1b}[2J.md (added)".into(), snap.into()];
        let text = submission_changes(&report);
        assert!(
            text.starts_with(
                "\nFiles the student changed outside exercises/*/src (not used: graded with the \
                 instructors' copies):\n"
            ),
            "{text}"
        );
        assert!(text.contains(&format!("\n  {snap}\n")), "{text}");
        assert!(text.contains("  NOTES\\u{1b}[2J.md (added)\n"), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
        let shown = render(&report, &Style::plain(), Detail::Full);
        assert!(shown.ends_with(&text), "{shown}");
        // A local grade's changed files are its notice's (`Unofficial:`), not this list.
        report.graded = Graded::Exercises;
        let shown = render(&report, &Style::plain(), Detail::Full);
        assert!(!shown.contains("Files the student changed"), "{shown}");
    }
}
