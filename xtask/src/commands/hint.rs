//! `cargo xtask hint EXERCISE`: reveals an exercise's hints one level per call (`--all` for every
//! level). How far each exercise has got is kept in `target/xtask/hints.json`.

use anyhow::{Result, bail};
use grader::course::Course;
use grader::course::suggest::{Kind, unknown};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `target/xtask/hints.json`, per course copy when the target folder is shared (see
/// [`grader::course::layout::state_file`]).
fn state_file(root: &Path) -> PathBuf {
    grader::course::layout::state_file(root, "hints")
}

fn load(path: &Path) -> BTreeMap<String, usize> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// Prints the next hint level (or all of them); returns the text printed.
pub fn hint(
    root: &Path,
    course: &Course,
    exercise: &str,
    all: bool,
    reset: bool,
) -> Result<String> {
    let Some((lesson, ex)) = course.find_exercise(exercise) else {
        bail!(unknown(course, Kind::Exercise, exercise));
    };
    if ex.hints.is_empty() {
        return Ok(format!("`{}` has no hints yet.\n", ex.name));
    }
    let path = state_file(root);
    let mut state = load(&path);
    if reset {
        state.remove(&ex.name);
    }
    let shown = state.get(&ex.name).copied().unwrap_or(0);
    let upto = if all {
        ex.hints.len()
    } else {
        (shown + 1).min(ex.hints.len())
    };
    let mut out = format!(
        "Hints for `{}` ({} · {}):\n",
        ex.name, lesson.id, lesson.title
    );
    for (i, h) in ex.hints.iter().enumerate().take(upto) {
        out.push_str(&format!("  {}. {h}\n", i + 1));
    }
    if upto < ex.hints.len() {
        out.push_str(&format!(
            "({} more: run `cargo xtask hint {}` again, or add --all)\n",
            ex.hints.len() - upto,
            ex.name
        ));
    } else {
        out.push_str("(that is every hint for this exercise)\n");
    }
    state.insert(ex.name.clone(), upto);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(
        &path,
        serde_json::to_string_pretty(&state).unwrap_or_default(),
    );
    Ok(out)
}
