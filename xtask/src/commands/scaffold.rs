//! `cargo xtask new LESSON-SLUG --title "..."`: scaffolds a lesson laid out as lessons 1 and 2 (one
//! placeholder exercise, one check with an exact snapshot, `examples/demo.rs`), appends it to
//! `course.toml` and README.md's lesson table ([`readme_problems`] holds them together), blesses
//! its snapshot and refreshes `checks.sha256`, so it passes `cargo xtask check` right away.

use anyhow::{Context as _, Result, anyhow, bail};
use grader::course::{Course, Lesson, Side};
use grader::fsutil;
use std::path::Path;

/// The lesson `new` creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLesson {
    /// Its number.
    pub number: u32,
    /// Package id, `lessonNN`.
    pub id: String,
    /// Directory name, `lessonNN-slug`.
    pub dir: String,
}

/// Works out the id and directory from a slug: `lesson07-rope` (number given) or `rope` (the next
/// free number).
pub fn name_lesson(root: &Path, course: &Course, slug: &str) -> Result<NewLesson> {
    let valid = !slug.is_empty()
        && slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !slug.starts_with('-')
        && !slug.ends_with('-')
        && !slug.contains("--");
    if !valid {
        bail!(
            "`{slug}` is not a lesson slug: use lower-case letters, digits and single dashes, e.g. `lesson07-rope` or `rope`"
        );
    }
    let (number, name) = match slug.strip_prefix("lesson") {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let name = rest[digits.len()..].trim_start_matches('-');
            if name.is_empty() {
                bail!("give the lesson a name after its number, e.g. `lesson{digits}-rope`");
            }
            let number: u32 = digits
                .parse()
                .map_err(|_| anyhow!("`{digits}` is not a lesson number"))?;
            if number == 0 {
                bail!("lesson numbers start at 1");
            }
            (number, name.to_owned())
        }
        _ => (next_number(root, course), slug.to_owned()),
    };
    let id = format!("lesson{number:02}");
    let dir = format!("{id}-{name}");
    if let Some(l) = course
        .lessons
        .iter()
        .find(|l| l.id == id || l.number() == Some(number))
    {
        bail!("lesson {number} already exists ({} in course.toml)", l.dir);
    }
    for side in ["exercises", "solutions"] {
        if let Some(taken) = lesson_dirs(root, side)
            .into_iter()
            .find(|(n, d)| *n == number || *d == dir)
        {
            bail!("{side}/{} already exists", taken.1);
        }
    }
    Ok(NewLesson { number, id, dir })
}

/// `(number, dir)` of the `lessonNN-*` directories under `root/side`.
fn lesson_dirs(root: &Path, side: &str) -> Vec<(u32, String)> {
    // One level, no recursion: `read_dir` is all it takes (no walk for `walkdir` to do).
    let Ok(entries) = std::fs::read_dir(root.join(side)) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let digits: String = name
                .strip_prefix("lesson")?
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            Some((digits.parse().ok()?, name))
        })
        .collect()
}

/// One more than the highest lesson number in course.toml, `exercises/` and `solutions/`.
fn next_number(root: &Path, course: &Course) -> u32 {
    course
        .lessons
        .iter()
        .filter_map(|l| l.number())
        .chain(lesson_dirs(root, "exercises").into_iter().map(|(n, _)| n))
        .chain(lesson_dirs(root, "solutions").into_iter().map(|(n, _)| n))
        .max()
        .unwrap_or(0)
        + 1
}

/// The `Cargo.toml` of the lesson crate `package` of `side`: a solution's check target is left out
/// of a plain `cargo test`, as in the course's lessons.
fn lesson_cargo(package: &str, side: Side) -> String {
    let (comment, flag) = match side {
        Side::Exercises => ("", ""),
        Side::Solutions => (SOLUTION_CHECKS_COMMENT, "test = false\n"),
    };
    (LESSON_CARGO.replace("@PKG@", package))
        .replace("@CHECKS_RUN_BY@", comment)
        .replace("@NOT_IN_CARGO_TEST@", flag)
}

/// Above a solution's check target (the course's solutions say the same).
const SOLUTION_CHECKS_COMMENT: &str = "# The checks against the reference solution: the grader's own \
    tests run them (`grade\n# --solutions`) and `cargo xtask check`; a plain `cargo test` would \
    build them again in its profile.\n";

/// The `Cargo.toml` of both lesson crates; `@PKG@` is `lessonNN` or `lessonNN-solution`.
const LESSON_CARGO: &str = r#"[package]
name = "@PKG@"
version.workspace = true
edition.workspace = true
rust-version.workspace = true
license.workspace = true
publish.workspace = true
autotests = false

[lib]
test = false
doctest = false

[dependencies]
attention.workspace = true
ndarray.workspace = true
# Only the worked example draws (`cargo xtask demo` turns on `demo`): the checks build without
# the pictures and plotters.
pictures = { workspace = true, optional = true }

[dev-dependencies]
course-check.workspace = true
insta.workspace = true

@CHECKS_RUN_BY@[[test]]
name = "@ID@"
path = "tests/@ID@.rs"
@NOT_IN_CARGO_TEST@
[[example]]
name = "@PKG@-demo"
path = "examples/demo.rs"
required-features = ["demo"]

[features]
demo = ["dep:pictures"]

[lints]
workspace = true
"#;

const EXERCISE_LIB: &str = r#"//! # Lesson @N@: @TITLE@
//!
//! Replace this text with the lesson: what the student builds, the worked example (see [`setup`])
//! and what correct code prints. Run `cargo xtask demo @ID@` to print the example with your code,
//! and `cargo xtask grade @ID@` to grade it.
//!
//! Your work is in [`exercises`]; [`setup`] is given.

pub mod exercises;
pub mod setup;

pub use exercises::placeholder;
"#;

const SETUP: &str = r#"//! The lesson's given code: the worked example's inputs.

/// Size of the worked example's matrix.
pub const N: usize = 3;
"#;

const EXERCISE_STUB: &str = r#"//! Your exercises for lesson @N@. Replace each `todo!()` with an implementation.
#![allow(unused_variables)]

use ndarray::Array2;

/// A placeholder exercise: the `(n, n)` matrix whose entry `(i, j)` is `10 * i + j`.
///
/// Replace it with the lesson's first real exercise (and its check, snapshot and hints).
pub fn placeholder(n: usize) -> Array2<f64> {
    todo!("placeholder: build the (n, n) matrix of 10 * i + j")
}
"#;

const EXERCISE_TARGET: &str = r#"//! Lesson @N@'s checks. `cargo xtask grade @ID@` runs them one by one against your code; the
//! checks themselves are in `checks.rs`, their expected outputs in `snapshots/`.
#[path = "checks.rs"]
mod checks;
"#;

const CHECKS: &str = r#"//! The checks of lesson @N@, shared by the exercise crate (`@ID@`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.

use course_check::assert_exact_snapshot;
use @ID@::setup::N;
use @ID@::*;

#[test]
fn placeholder_matches_snapshot() {
    let _proof = course_check::proof();
    assert_exact_snapshot!("placeholder", placeholder(N));
}
"#;

const EXERCISE_DEMO: &str = r#"//! Lesson @N@'s worked example, printed the way the lesson text prints it. Every line is
//! computed by your code; a line that needs a function you have not written yet says so, and
//! the rest still runs.
//!
//! Run it with `cargo xtask demo @ID@` (`--svg DIR` also writes its figures as SVG files).

use @ID@::setup::N;
use @ID@::*;
use pictures::{Demo, Got};
use std::process::ExitCode;

/// Builds the worked example, prints it and draws it.
pub fn main() -> ExitCode {
    let d = Demo::start("@ID@");
    let m = d.value(|| Ok(placeholder(N)));
    d.line(&format!("placeholder({N}) = "), || {
        let m = m.got()?;
        Ok(format!("{:?} matrix\n{m}", m.dim()))
    });
    d.figure(
        "@ID@-placeholder",
        "Lesson @N@: the placeholder matrix",
        |f| {
            Ok(f.axes("row", "column")
                .panel("10 i + j", m.got()?.view())
                .scaled_to_max())
        },
    );
    d.finish()
}
"#;

const SOLUTION_LIB: &str = r#"//! Reference solution for lesson @N@. Same public API as the exercise crate `@ID@`; the lesson's
//! given code ([`setup`]) is the exercise crate's own file, included here unchanged.

pub mod exercises;
#[path = "../../../exercises/@DIR@/src/setup.rs"]
pub mod setup;

pub use exercises::placeholder;
"#;

const SOLUTION_EXERCISES: &str = r#"//! Reference solutions for lesson @N@.

use ndarray::Array2;

/// A placeholder exercise: the `(n, n)` matrix whose entry `(i, j)` is `10 * i + j`.
pub fn placeholder(n: usize) -> Array2<f64> {
    Array2::from_shape_fn((n, n), |(i, j)| (10 * i + j) as f64)
}
"#;

const SOLUTION_TARGET: &str = r#"//! Lesson @N@'s shared checks, run against the reference solution (same target name and module as
//! the exercise crate's, so both use the same snapshot files).
extern crate @ID@_solution as @ID@;

#[path = "../../../exercises/@DIR@/tests/checks.rs"]
mod checks;
"#;

const SOLUTION_DEMO: &str = r#"//! Lesson @N@'s worked example with the reference solution (`cargo xtask demo @ID@ --solutions`).
extern crate @ID@_solution as @ID@;

#[path = "../../../exercises/@DIR@/examples/demo.rs"]
mod demo;

fn main() -> std::process::ExitCode {
    demo::main()
}
"#;

const COURSE_ENTRY: &str = r#"
[[lessons]]
id = "@ID@"
dir = "@DIR@"
title = @TITLE_TOML@

[[lessons.exercises]]
name = "placeholder"
hints = [
    "`Array2::from_shape_fn((n, n), |(i, j)| (10 * i + j) as f64)` builds it in one go.",
]
checks = [
    { name = "placeholder_matches_snapshot", points = 1 },
]
"#;

/// The files of a new lesson, `(path relative to the course root, contents)`.
pub fn files(lesson: &NewLesson, title: &str) -> Vec<(String, String)> {
    let fill = |t: &str| {
        t.replace("@ID@", &lesson.id)
            .replace("@DIR@", &lesson.dir)
            .replace("@N@", &lesson.number.to_string())
            .replace("@TITLE@", title)
    };
    let ex = format!("exercises/{}", lesson.dir);
    let so = format!("solutions/{}", lesson.dir);
    let id = &lesson.id;
    vec![
        (
            format!("{ex}/Cargo.toml"),
            fill(&lesson_cargo(&lesson.id, Side::Exercises)),
        ),
        (format!("{ex}/src/lib.rs"), fill(EXERCISE_LIB)),
        (format!("{ex}/src/setup.rs"), fill(SETUP)),
        (format!("{ex}/src/exercises.rs"), fill(EXERCISE_STUB)),
        (format!("{ex}/tests/{id}.rs"), fill(EXERCISE_TARGET)),
        (format!("{ex}/tests/checks.rs"), fill(CHECKS)),
        (format!("{ex}/examples/demo.rs"), fill(EXERCISE_DEMO)),
        (
            format!("{so}/Cargo.toml"),
            fill(&lesson_cargo(
                &format!("{}-solution", lesson.id),
                Side::Solutions,
            )),
        ),
        (format!("{so}/src/lib.rs"), fill(SOLUTION_LIB)),
        (format!("{so}/src/exercises.rs"), fill(SOLUTION_EXERCISES)),
        (format!("{so}/tests/{id}.rs"), fill(SOLUTION_TARGET)),
        (format!("{so}/examples/demo.rs"), fill(SOLUTION_DEMO)),
    ]
}

/// The `course.toml` entry of a new lesson.
pub fn course_entry(lesson: &NewLesson, title: &str) -> String {
    let title_toml = toml::Value::String(title.to_owned()).to_string();
    COURSE_ENTRY
        .replace("@ID@", &lesson.id)
        .replace("@DIR@", &lesson.dir)
        .replace("@TITLE_TOML@", &title_toml)
}

/// Adds the lesson's row to README.md's lesson table (no README, no table to keep).
fn add_to_readme(root: &Path, lesson: &NewLesson, title: &str) -> Result<()> {
    let path = root.join("README.md");
    let Ok(readme) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let row = readme_row(lesson.number, &lesson.dir, title);
    match add_readme_row(&readme, &row) {
        Some(text) => {
            fsutil::write(&path, &text)?;
            println!("added its row to README.md's lesson table");
        }
        None => println!(
            "README.md has no lesson table under `{README_SECTION}`: add one with this row:\n{row}"
        ),
    }
    Ok(())
}

/// Scaffolds the lesson, appends it to course.toml and README's lesson table, blesses its snapshot and refreshes the
/// manifest. Returns the new lesson.
pub fn run(root: &Path, course: &Course, slug: &str, title: &str) -> Result<NewLesson> {
    grader::course::require_solutions(root)?;
    let title = title.trim();
    if title.is_empty() || title.contains(['\n', '\r']) {
        bail!("--title must be one non-empty line");
    }
    let lesson = name_lesson(root, course, slug)?;
    for (rel, text) in files(&lesson, title) {
        fsutil::write(&root.join(&rel), &text)?;
        println!("created {rel}");
    }
    let course_file = root.join("course.toml");
    let mut text = fsutil::read(&course_file)?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&course_entry(&lesson, title));
    fsutil::write(&course_file, &text)?;
    println!("appended {} to course.toml", lesson.id);
    add_to_readme(root, &lesson, title)?;

    let course = Course::load(root)?;
    let new = course
        .find_lesson(&lesson.id)
        .context("the new lesson is missing from course.toml")?;
    let plans = crate::commands::bless::plan(root, &course, &[new])?;
    print!("{}", crate::commands::bless::render(&plans, false));
    if let Some(why) = plans.iter().find_map(|p| p.refused.as_ref()) {
        bail!("the lesson's files are written, but its snapshot could not be blessed: {why}");
    }
    crate::commands::bless::apply(root, &course, &plans)?;
    println!(
        "updated {}\n\nNext:\n  \
         - add each exercise with `cargo xtask new-exercise {id} NAME` (stub, reference, check, \
         snapshot and course.toml entry at once)\n  \
         - write the lesson's text in exercises/{dir}/src/lib.rs and its worked example in \
         exercises/{dir}/examples/demo.rs\n  \
         - after changing a reference or a check: `cargo xtask bless {id}`, then \
         `cargo xtask check {id}`",
        grader::course::manifest::FILE,
        id = lesson.id,
        dir = lesson.dir,
    );
    Ok(lesson)
}

/// README.md's lessons section: the table under this heading lists every lesson of course.toml.
pub const README_SECTION: &str = "## Lessons";

/// README's row of a lesson: `| N | `exercises/DIR` | TITLE |` (a `|` in the title escaped).
pub fn readme_row(number: u32, dir: &str, title: &str) -> String {
    format!(
        "| {number} | `exercises/{dir}` | {} |",
        title.replace('|', "\\|")
    )
}

/// The lines of README's lessons section, `(line index, line)`, up to the next `## ` heading.
fn lessons_section(readme: &str) -> Option<Vec<(usize, &str)>> {
    let mut lines = readme.lines().enumerate();
    lines.find(|(_, l)| l.trim_end() == README_SECTION)?;
    Some(lines.take_while(|(_, l)| !l.starts_with("## ")).collect())
}

/// The lesson rows of README's table: `(number, dir)` of each `| N | `exercises/DIR` | ... |`.
pub fn readme_rows(readme: &str) -> Option<Vec<(u32, String)>> {
    let rows = lessons_section(readme)?
        .into_iter()
        .filter_map(|(_, l)| {
            let mut cells = l.trim().strip_prefix('|')?.split('|').map(str::trim);
            let number = cells.next()?.parse().ok()?;
            let dir = cells
                .next()?
                .strip_prefix("`exercises/")?
                .strip_suffix('`')?;
            Some((number, dir.to_owned()))
        })
        .collect();
    Some(rows)
}

/// README with `row` added after the last row of its lessons table; `None` when it has no table.
pub fn add_readme_row(readme: &str, row: &str) -> Option<String> {
    let last = lessons_section(readme)?
        .into_iter()
        .filter(|(_, l)| l.trim_start().starts_with('|'))
        .map(|(i, _)| i)
        .next_back()?;
    let mut lines: Vec<&str> = readme.lines().collect();
    lines.insert(last + 1, row);
    let mut out = lines.join("\n");
    if readme.ends_with('\n') {
        out.push('\n');
    }
    Some(out)
}

/// Where README.md's lesson table and course.toml disagree, one problem each, saying the edit that
/// fixes it. Only `lessons`' rows are looked for; rows of lessons course.toml does not have are
/// reported when `extra` is set (a check of the whole course). A course without README.md has no
/// table to keep.
pub fn readme_problems(
    root: &Path,
    course: &Course,
    lessons: &[&Lesson],
    extra: bool,
) -> Vec<String> {
    let Ok(readme) = std::fs::read_to_string(root.join("README.md")) else {
        return Vec::new();
    };
    let Some(rows) = readme_rows(&readme) else {
        return vec![format!(
            "README.md has no `{README_SECTION}` section: add it, with one row per lesson"
        )];
    };
    let mut out = Vec::new();
    for l in lessons {
        let Some(number) = l.number() else { continue };
        if !rows.iter().any(|(n, d)| *n == number && *d == l.dir) {
            out.push(format!(
                "README.md's lesson table has no row for {} ({}): add this row to its `{README_SECTION}` table:\n{}",
                l.id,
                l.dir,
                readme_row(number, &l.dir, &l.title)
            ));
        }
    }
    if extra {
        for (n, d) in &rows {
            if !course
                .lessons
                .iter()
                .any(|l| l.dir == *d && l.number() == Some(*n))
            {
                out.push(format!(
                    "README.md's lesson table has a row `| {n} | `exercises/{d}` |` that is no lesson of course.toml: delete it (or correct it to the lesson's number and folder)"
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn course() -> Course {
        toml::from_str(
            "[course]\ntitle = \"t\"\n[[lessons]]\nid = \"lesson02\"\ndir = \"lesson02-split\"\ntitle = \"s\"\n",
        )
        .unwrap()
    }

    #[test]
    fn slugs_name_lessons() {
        let root = Path::new("/nonexistent-course-root");
        let c = course();
        assert_eq!(
            name_lesson(root, &c, "rope").unwrap(),
            NewLesson {
                number: 3,
                id: "lesson03".into(),
                dir: "lesson03-rope".into()
            }
        );
        assert_eq!(
            name_lesson(root, &c, "lesson07-rope-scaling").unwrap().dir,
            "lesson07-rope-scaling"
        );
        assert!(name_lesson(root, &c, "lesson2-again").is_err());
        assert!(name_lesson(root, &c, "lesson07").is_err());
        assert!(name_lesson(root, &c, "Rope").is_err());
        assert!(name_lesson(root, &c, "a/b").is_err());
    }

    /// Whether the check target `name` of the `Cargo.toml` text `manifest` runs in a plain
    /// `cargo test` (cargo's default: yes).
    fn in_cargo_test(manifest: &str, name: &str) -> bool {
        let table: toml::Table = toml::from_str(manifest).unwrap();
        let targets = table["test"].as_array().unwrap();
        let target = targets.iter().find(|t| t["name"].as_str() == Some(name));
        let target = target.unwrap_or_else(|| panic!("no target {name} in\n{manifest}"));
        target.get("test").and_then(toml::Value::as_bool) != Some(false)
    }

    #[test]
    fn a_new_solutions_checks_stay_out_of_cargo_test_as_the_courses_do() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let course = Course::load(root).unwrap();
        for lesson in &course.lessons {
            let dir = lesson.crate_dir(root, Side::Solutions);
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            for target in lesson.check_targets() {
                assert!(!in_cargo_test(&manifest, &target), "{}", dir.display());
            }
        }
        let lesson = NewLesson {
            number: 10,
            id: "lesson10".into(),
            dir: "lesson10-x".into(),
        };
        let files = files(&lesson, "x");
        let manifest = |side: &str| {
            let path = format!("{side}/lesson10-x/Cargo.toml");
            (files.iter().find(|(p, _)| *p == path))
                .unwrap_or_else(|| panic!("no {path}"))
                .1
                .clone()
        };
        assert!(!in_cargo_test(&manifest("solutions"), "lesson10"));
        // A student's crate is not a default member; its `cargo test -p` runs its checks.
        assert!(in_cargo_test(&manifest("exercises"), "lesson10"));
    }

    #[test]
    fn the_course_entry_parses() {
        let l = NewLesson {
            number: 7,
            id: "lesson07".into(),
            dir: "lesson07-rope".into(),
        };
        let text = format!(
            "[course]\ntitle = \"t\"\n{}",
            course_entry(&l, "Rotary \"RoPE\" \\ embeddings")
        );
        let c: Course = toml::from_str(&text).unwrap();
        assert_eq!(c.lessons[0].title, "Rotary \"RoPE\" \\ embeddings");
        assert_eq!(c.lessons[0].exercises[0].checks[0].points, 1);
    }

    #[test]
    fn readme_rows_are_added_and_held_to_course_toml() {
        let readme = "# C\n\n## Lessons\n\n| lesson | crate you edit | what you build |\n|---|---|---|\n\
                      | 2 | `exercises/lesson02-split` | split |\n\nText.\n\n## Next\n\n| 9 | `exercises/lesson09-x` | x |\n";
        assert_eq!(
            readme_rows(readme).unwrap(),
            vec![(2, "lesson02-split".to_owned())]
        );
        let row = readme_row(3, "lesson03-rope", "a | b");
        assert_eq!(row, "| 3 | `exercises/lesson03-rope` | a \\| b |");
        let added = add_readme_row(readme, &row).unwrap();
        assert!(
            added.contains("| split |\n| 3 | `exercises/lesson03-rope` | a \\| b |\n\nText."),
            "{added}"
        );
        assert_eq!(readme_rows(&added).unwrap().len(), 2);
        assert!(add_readme_row("# C\n", &row).is_none());

        let root = grader::fsutil::scratch_dir("readme-rows").unwrap();
        let mut c = course();
        c.lessons.push(
            toml::from_str("id = \"lesson03\"\ndir = \"lesson03-rope\"\ntitle = \"Rope\"\n")
                .unwrap(),
        );
        let all: Vec<&Lesson> = c.lessons.iter().collect();
        // No README, no table to keep.
        assert!(readme_problems(root.path(), &c, &all, true).is_empty());
        std::fs::write(root.path().join("README.md"), readme).unwrap();
        let problems = readme_problems(root.path(), &c, &all, true);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0]
                .starts_with("README.md's lesson table has no row for lesson03 (lesson03-rope)")
                && problems[0].ends_with("\n| 3 | `exercises/lesson03-rope` | Rope |"),
            "{}",
            problems[0]
        );
        std::fs::write(root.path().join("README.md"), &added).unwrap();
        assert!(readme_problems(root.path(), &c, &all, true).is_empty());
        // A row course.toml does not have is reported by a whole-course check only.
        let two = course();
        let only_two: Vec<&Lesson> = two.lessons.iter().collect();
        assert!(readme_problems(root.path(), &two, &only_two, false).is_empty());
        let extra = readme_problems(root.path(), &two, &only_two, true);
        assert_eq!(extra.len(), 1, "{extra:?}");
        assert!(extra[0].contains("`| 3 | `exercises/lesson03-rope` |` that is no lesson"));
    }
}
