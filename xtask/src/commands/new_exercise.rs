//! `cargo xtask new-exercise LESSON NAME`: adds an exercise to a lesson everywhere it must go (stub,
//! reference, re-exports, `course.toml` entry, a check), then formats the two crates, blesses the
//! lesson's snapshots and refreshes `checks.sha256`, so the lesson passes `cargo xtask check` at
//! once.

use anyhow::{Context as _, Result, anyhow, bail};
use grader::course::{Course, Lesson};
use grader::fsutil;
use std::path::Path;

/// Rust's keywords (strict and reserved, 2024 edition): no function can take one as its name.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while", "abstract", "become", "box", "do", "final", "macro", "override",
    "priv", "typeof", "unsized", "virtual", "yield", "try",
];

/// True for a snake_case Rust identifier a function can be named: `[a-z_][a-z0-9_]*`, not `_`
/// and not a keyword (an upper-case letter would make the stub warn, and `check` refuse it).
pub fn is_function_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name != "_"
        && !KEYWORDS.contains(&name)
}

/// The stub appended to the exercise crate; `@ALLOW@` silences the unused argument when the file
/// does not already.
const STUB: &str = r#"
/// `@NAME@(n)`: the `(n, n)` matrix whose entry `(i, j)` is `i * n + j`
/// (its index in row-major order).
///
/// A new exercise's placeholder contract: replace it with the exercise's own (what it computes,
/// the shapes it takes and returns).
@ALLOW@pub fn @NAME@(n: usize) -> ndarray::Array2<f64> {
    todo!("@NAME@: build the (n, n) matrix of i * n + j")
}
"#;

/// The reference appended to the solution crate.
const REFERENCE: &str = r#"
/// `@NAME@(n)`: the `(n, n)` matrix whose entry `(i, j)` is `i * n + j`.
pub fn @NAME@(n: usize) -> ndarray::Array2<f64> {
    ndarray::Array2::from_shape_fn((n, n), |(i, j)| (i * n + j) as f64)
}
"#;

/// The check appended to `tests/checks.rs`, in the style of `new`'s placeholder check.
const CHECK: &str = r#"
#[test]
fn @NAME@_matches_snapshot() {
    let _proof = course_check::proof();
    @MACRO@!("@NAME@", @CALL@(3));
}
"#;

/// The `course.toml` entry, appended to the lesson's block.
const ENTRY: &str = r#"
[[lessons.exercises]]
name = "@NAME@"
hints = [
    "`ndarray::Array2::from_shape_fn((n, n), |(i, j)| (i * n + j) as f64)` builds it in one go.",
]
checks = [
    { name = "@NAME@_matches_snapshot", points = 1 },
]
"#;

/// `lib.rs` with `name` added to its `pub use exercises::...;` (a glob needs nothing; a crate
/// without one gets one). The list is left for rustfmt to sort.
pub fn add_reexport(lib: &str, name: &str) -> Option<String> {
    const USE: &str = "pub use exercises::";
    let Some(start) = lib
        .match_indices(USE)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || lib[..i].ends_with('\n'))
    else {
        let mut out = lib.to_owned();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("\n{USE}{name};\n"));
        return Some(out);
    };
    let rest = &lib[start + USE.len()..];
    let end = rest.find(';')?;
    let items = rest[..end].trim();
    let list = if items == "*" {
        return None;
    } else if let Some(inner) = items.strip_prefix('{').and_then(|i| i.strip_suffix('}')) {
        let inner = inner.trim().trim_end_matches(',').trim();
        format!("{{{inner}, {name}}}")
    } else {
        format!("{{{items}, {name}}}")
    };
    Some(format!("{}{USE}{list}{}", &lib[..start], &rest[end..]))
}

/// `course.toml` with `entry` appended to the block of lesson `id` (before the next `[[lessons]]`
/// and the comments leading up to it).
pub fn add_to_course(text: &str, id: &str, entry: &str) -> Result<String> {
    let lines: Vec<&str> = text.lines().collect();
    let heads: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim() == "[[lessons]]")
        .collect();
    let is_id = |l: &str| {
        l.split_once('=').is_some_and(|(k, v)| {
            k.trim() == "id" && v.trim().trim_matches(|c| c == '"' || c == '\'') == id
        })
    };
    let (at, head) = heads
        .iter()
        .enumerate()
        .find(|&(n, &h)| {
            let end = heads.get(n + 1).copied().unwrap_or(lines.len());
            lines[h + 1..end]
                .iter()
                .take_while(|l| !l.trim_start().starts_with('['))
                .any(|l| is_id(l))
        })
        .ok_or_else(|| anyhow!("no `[[lessons]]` with id = \"{id}\" in course.toml"))?;
    let mut end = heads.get(at + 1).copied().unwrap_or(lines.len());
    while end > *head + 1 && {
        let l = lines[end - 1].trim();
        l.is_empty() || l.starts_with('#')
    } {
        end -= 1;
    }
    let mut out: Vec<String> = lines[..end].iter().map(|l| (*l).to_owned()).collect();
    out.extend(entry.trim_end().lines().map(str::to_owned));
    if lines.get(end).is_some_and(|l| !l.trim().is_empty()) {
        out.push(String::new());
    }
    out.extend(lines[end..].iter().map(|l| (*l).to_owned()));
    Ok(out.join("\n") + "\n")
}

/// True when some `.rs` file under `dir` defines `fn name`.
fn defines_fn(dir: &Path, name: &str) -> bool {
    let needle = format!("fn {name}");
    fsutil::files_under(dir, dir, &|_, _| false)
        .iter()
        .filter(|f| f.ends_with(".rs"))
        .any(|f| {
            std::fs::read_to_string(dir.join(f)).is_ok_and(|text| {
                text.match_indices(&needle).any(|(i, _)| {
                    text[i + needle.len()..].starts_with(['(', '<'])
                        && !text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
        })
}

/// Refuses a name that is not a function name, or that the course already uses: an exercise of
/// any lesson, a function of any lesson's crates, or the new check's or snapshot's name.
fn refuse_taken(root: &Path, course: &Course, lesson: &Lesson, name: &str) -> Result<()> {
    if !is_function_name(name) {
        bail!(
            "`{name}` is not a Rust function name: use a snake_case identifier (lower-case \
             letters, digits and `_`, not starting with a digit, not a keyword), e.g. `rotate_pairs`"
        );
    }
    if let Some(l) = course
        .lessons
        .iter()
        .find(|l| l.exercises.iter().any(|e| e.name == name))
    {
        bail!(
            "exercise `{name}` already exists (in {}, course.toml)",
            l.id
        );
    }
    for l in &course.lessons {
        for solutions in [false, true] {
            let src = l
                .crate_dir(root, grader::course::Side::from_solutions(solutions))
                .join("src");
            if defines_fn(&src, name) {
                bail!(
                    "`fn {name}` already exists in {}: choose another name",
                    grader::fsutil::relative(root, &src)
                );
            }
        }
    }
    let check = format!("{name}_matches_snapshot");
    if lesson
        .exercises
        .iter()
        .flat_map(|e| &e.checks)
        .any(|c| c.name == check)
        || defines_fn(
            &lesson
                .crate_dir(root, grader::course::Side::Exercises)
                .join("tests"),
            &check,
        )
    {
        bail!("check `{check}` already exists in {}", lesson.id);
    }
    let snap = format!(
        "exercises/{}/tests/snapshots/{}__checks__{name}.snap",
        lesson.dir, lesson.id
    );
    if root.join(&snap).exists() {
        bail!("{snap} already exists");
    }
    Ok(())
}

/// The new texts of every file the exercise `name` goes into (exercise and solution sources,
/// re-exports, the check, course.toml), worked out before any is written: a refusal leaves the
/// course as it was.
fn planned_edits(root: &Path, lesson: &Lesson, name: &str) -> Result<Vec<(String, String)>> {
    let (id, dir) = (lesson.id.as_str(), lesson.dir.as_str());
    let fill = |t: &str| t.replace("@NAME@", name);
    let ex = format!("exercises/{dir}");
    let so = format!("solutions/{dir}");
    let read = |rel: &str| fsutil::read(&root.join(rel));
    let mut edits: Vec<(String, String)> = Vec::new();

    let rel = format!("{ex}/src/exercises.rs");
    let text = read(&rel)?;
    let allow = if text.contains("#![allow(unused_variables)]") {
        ""
    } else {
        "#[allow(unused_variables)]\n"
    };
    edits.push((rel, text + &fill(STUB).replace("@ALLOW@", allow)));
    let rel = format!("{so}/src/exercises.rs");
    let text = read(&rel)?;
    edits.push((rel, text + &fill(REFERENCE)));
    for side in [&ex, &so] {
        let rel = format!("{side}/src/lib.rs");
        if let Some(text) = add_reexport(&read(&rel)?, name) {
            edits.push((rel, text));
        }
    }
    let rel = format!("{ex}/tests/checks.rs");
    let text = read(&rel)?;
    let macro_imported = text
        .lines()
        .any(|l| l.starts_with("use course_check::") && l.contains("assert_exact_snapshot"));
    let glob = text.contains(&format!("use {id}::*;"));
    let check = fill(CHECK)
        .replace(
            "@MACRO@",
            if macro_imported {
                "assert_exact_snapshot"
            } else {
                "course_check::assert_exact_snapshot"
            },
        )
        .replace(
            "@CALL@",
            &if glob {
                name.to_owned()
            } else {
                format!("{id}::{name}")
            },
        );
    edits.push((rel, text + &check));
    let course_text = read("course.toml")?;
    let new_course = add_to_course(&course_text, id, &fill(ENTRY))?;
    let parsed: Course =
        toml::from_str(&new_course).context("the new course.toml does not parse")?;
    if parsed
        .find_lesson(id)
        .and_then(|l| l.exercises.last())
        .is_none_or(|e| e.name != name)
    {
        bail!("could not add `{name}` to {id}'s entries in course.toml");
    }
    edits.push(("course.toml".into(), new_course));

    Ok(edits)
}

/// Writes `edits` for the exercise `name` of lesson `id`, formats the lesson's crates and blesses
/// its snapshots; on a failure the files are put back as they were.
fn apply_edits(root: &Path, id: &str, name: &str, edits: &[(String, String)]) -> Result<()> {
    let read = |rel: &str| fsutil::read(&root.join(rel));
    let originals: Vec<(String, String)> = edits
        .iter()
        .map(|(rel, _)| Ok((rel.clone(), read(rel)?)))
        .collect::<Result<_>>()?;
    for (rel, text) in edits {
        fsutil::write(&root.join(rel), text)?;
        println!("updated {rel}");
    }
    // A half-added exercise would leave the lesson broken: any failure from here puts the files back.
    let restore = |why: anyhow::Error| -> anyhow::Error {
        for (rel, text) in &originals {
            if let Err(e) = fsutil::write(&root.join(rel), text) {
                return e.context(format!("{why:#}; and {rel} could not be restored"));
            }
        }
        why.context(format!(
            "`{name}` was not added (the files are as they were)"
        ))
    };
    let course = Course::load(root).map_err(restore)?;
    let lesson = course
        .find_lesson(id)
        .ok_or_else(|| restore(anyhow!("the lesson is missing from course.toml")))?;

    // The re-export lists and appended code in rustfmt's layout, as `check` wants them.
    let fmt = grader::build::cargo::command()
        .current_dir(root)
        .args([
            "fmt",
            "-p",
            &lesson.package(grader::course::Side::Exercises),
            "-p",
            &lesson.package(grader::course::Side::Solutions),
        ])
        .status()
        .context("could not run cargo fmt")
        .map_err(restore)?;
    if !fmt.success() {
        return Err(restore(anyhow!(
            "cargo fmt failed on {id}'s crates (it says why above)"
        )));
    }

    let plans = crate::commands::bless::plan(root, &course, &[lesson]).map_err(restore)?;
    if let Some(why) = plans.iter().find_map(|p| p.refused.as_ref()) {
        return Err(restore(anyhow!(
            "{id}'s snapshots could not be blessed: {why}"
        )));
    }
    print!("{}", crate::commands::bless::render(&plans, false));
    crate::commands::bless::apply(root, &course, &plans)?;
    Ok(())
}

/// Adds exercise `name` to `lesson_key` (see the module docs), then prints what to do next.
pub fn run(root: &Path, course: &Course, lesson_key: &str, name: &str) -> Result<()> {
    grader::course::require_solutions(root)?;
    let lesson = course.find_lesson(lesson_key).ok_or_else(|| {
        anyhow!(grader::course::suggest::unknown(
            course,
            grader::course::suggest::Kind::Lesson,
            lesson_key
        ))
    })?;
    refuse_taken(root, course, lesson, name)?;
    let edits = planned_edits(root, lesson, name)?;
    apply_edits(root, &lesson.id, name, &edits)?;
    let (id, dir) = (lesson.id.as_str(), lesson.dir.as_str());
    let (ex, so) = (format!("exercises/{dir}"), format!("solutions/{dir}"));
    println!(
        "updated {}\n\nNext:\n  \
         1. In {ex}/src/exercises.rs, replace `{name}`'s placeholder contract (its doc comment \
         and signature) with the exercise's own; keep its `todo!()` body.\n  \
         2. In {so}/src/exercises.rs, give `{name}` the same signature and a working body.\n  \
         3. In {ex}/tests/checks.rs, make `{name}_matches_snapshot` call it with the lesson's \
         inputs; in course.toml, rewrite its hint.\n  \
         4. Run `cargo xtask bless {id}`, then `cargo xtask check {id}`.",
        grader::course::manifest::FILE,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_names_are_snake_case_identifiers() {
        for ok in ["rotate_pairs", "_x", "f2"] {
            assert!(is_function_name(ok), "{ok}");
        }
        for bad in [
            "",
            "_",
            "2x",
            "RotatePairs",
            "rotate-pairs",
            "a::b",
            "fn",
            "match",
            "é",
        ] {
            assert!(!is_function_name(bad), "{bad}");
        }
    }

    #[test]
    fn reexports_are_added_to_named_lists_only() {
        assert_eq!(
            add_reexport(
                "pub mod exercises;\n\npub use exercises::placeholder;\n",
                "b"
            )
            .unwrap(),
            "pub mod exercises;\n\npub use exercises::{placeholder, b};\n"
        );
        assert_eq!(
            add_reexport(
                "pub use exercises::{\n    a,\n    c,\n};\npub use setup::X;\n",
                "b"
            )
            .unwrap(),
            "pub use exercises::{a,\n    c, b};\npub use setup::X;\n"
        );
        assert_eq!(add_reexport("pub use exercises::*;\n", "b"), None);
        // An indented `pub use exercises::` (inside a module) is not the crate's re-export.
        assert_eq!(
            add_reexport("mod m {\n    pub use exercises::x;\n}\n", "b").unwrap(),
            "mod m {\n    pub use exercises::x;\n}\n\npub use exercises::b;\n"
        );
    }

    #[test]
    fn the_entry_goes_to_its_lessons_block() {
        let text = "[course]\ntitle = \"t\"\n\n[[lessons]]\nid = \"lesson01\"\ndir = \"lesson01-a\"\n\
                    title = \"a\"\n\n[[lessons.exercises]]\nname = \"x\"\n\n# Lesson 2.\n\n\
                    [[lessons]]\nid = \"lesson02\"\ndir = \"lesson02-b\"\ntitle = \"b\"\n";
        let entry = "\n[[lessons.exercises]]\nname = \"y\"\n";
        let out = add_to_course(text, "lesson01", entry).unwrap();
        assert!(
            out.contains("name = \"x\"\n\n[[lessons.exercises]]\nname = \"y\"\n\n# Lesson 2."),
            "{out}"
        );
        let c: Course = toml::from_str(&out).unwrap();
        assert_eq!(c.lessons[0].exercises.len(), 2);
        assert!(c.lessons[1].exercises.is_empty());
        let last = add_to_course(text, "lesson02", entry).unwrap();
        let c: Course = toml::from_str(&last).unwrap();
        assert_eq!(c.lessons[1].exercises[0].name, "y");
        assert!(add_to_course(text, "lesson03", entry).is_err());
    }
}
