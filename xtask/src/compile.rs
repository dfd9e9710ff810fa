//! Building every graded lesson's check binary with one cargo invocation.
//!
//! `cargo build --tests --keep-going --message-format=json` builds all lessons at once; a lesson
//! whose crate does not compile is reported with the compiler's first error while every other
//! lesson still gets its test executable.

use crate::course::Lesson;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What the build produced for one lesson.
#[derive(Debug, Clone)]
pub enum Built {
    /// The check executable.
    Ok(PathBuf),
    /// The crate did not compile: the first error, trimmed.
    Failed(String),
}

#[derive(Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    manifest_path: Option<PathBuf>,
    #[serde(default)]
    target: Option<Target>,
    #[serde(default)]
    executable: Option<PathBuf>,
    #[serde(default)]
    message: Option<Diagnostic>,
}

#[derive(Deserialize)]
struct Target {
    kind: Vec<String>,
}

#[derive(Deserialize)]
struct Diagnostic {
    level: String,
    #[serde(default)]
    rendered: Option<String>,
}

/// Keeps the first `max_lines` lines of a rendered compiler error.
pub fn trim_error(rendered: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = rendered.trim_end().lines().collect();
    let mut out = lines[..lines.len().min(max_lines)].join("\n");
    if lines.len() > max_lines {
        out.push_str("\n   ...");
    }
    out
}

/// Builds the check binaries of `lessons` (exercise or solution crates) and says, per lesson id,
/// what came out. `progress` is told about the build starting.
pub fn build_lessons(
    root: &Path,
    lessons: &[&Lesson],
    solutions: bool,
) -> Result<HashMap<String, Built>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args(["build", "--tests", "--keep-going", "--message-format=json"])
        .env_remove("RUSTFLAGS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for lesson in lessons {
        cmd.args(["-p", &lesson.package(solutions)]);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);

    let dir_of: HashMap<PathBuf, &Lesson> = lessons
        .iter()
        .map(|l| (l.crate_dir(root, solutions), *l))
        .collect();
    let lesson_for = |manifest: &Option<PathBuf>| -> Option<&Lesson> {
        let dir = manifest.as_ref()?.parent()?;
        dir_of.get(dir).copied().or_else(|| {
            dir.canonicalize()
                .ok()
                .and_then(|d| dir_of.get(&d).copied())
        })
    };

    let mut result: HashMap<String, Built> = HashMap::new();
    let mut first_dependency_error: Option<String> = None;
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<Message>(line) else {
            continue;
        };
        match msg.reason.as_str() {
            "compiler-artifact" => {
                let is_test = msg
                    .target
                    .as_ref()
                    .is_some_and(|t| t.kind.iter().any(|k| k == "test"));
                if let (true, Some(exe), Some(lesson)) =
                    (is_test, msg.executable, lesson_for(&msg.manifest_path))
                {
                    result.insert(lesson.id.clone(), Built::Ok(exe));
                }
            }
            "compiler-message" => {
                let Some(diag) = msg.message else { continue };
                if diag.level != "error" {
                    continue;
                }
                let text = trim_error(diag.rendered.as_deref().unwrap_or("error"), 12);
                match lesson_for(&msg.manifest_path) {
                    Some(lesson) => {
                        result
                            .entry(lesson.id.clone())
                            .or_insert(Built::Failed(text));
                    }
                    None => {
                        first_dependency_error.get_or_insert(text);
                    }
                }
            }
            _ => {}
        }
    }
    for lesson in lessons {
        result.entry(lesson.id.clone()).or_insert_with(|| {
            let why = first_dependency_error.clone().unwrap_or_else(|| {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            });
            Built::Failed(format!(
                "no check binary was built for {}:\n{why}",
                lesson.id
            ))
        });
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::trim_error;

    #[test]
    fn long_errors_are_trimmed() {
        let text = (1..=20)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let t = trim_error(&text, 3);
        assert_eq!(t, "line 1\nline 2\nline 3\n   ...");
        assert_eq!(trim_error("one\n", 3), "one");
    }
}
