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

/// One check executable of a lesson: the visible checks' target (`lessonNN`) or the hidden
/// checks' (`lessonNN_hidden`).
#[derive(Debug, Clone)]
pub struct CheckBinary {
    /// The test target's name.
    pub target: String,
    /// The executable.
    pub exe: PathBuf,
    /// True for the hidden checks' target.
    pub hidden: bool,
}

/// What the build produced for one lesson.
#[derive(Debug, Clone)]
pub enum Built {
    /// The check executables: the visible checks' first, then the hidden checks' (when the lesson
    /// has hidden checks).
    Ok(Vec<CheckBinary>),
    /// The crate did not compile: the first error, trimmed.
    Failed(String),
}

/// Everything one build says about the lessons.
#[derive(Debug, Clone, Default)]
pub struct BuildOutput {
    /// Per lesson id: the check executables or the first error.
    pub lessons: HashMap<String, Built>,
    /// Per lesson id: the compiler's warnings for the lesson's crate, trimmed, in build order.
    pub warnings: HashMap<String, Vec<String>>,
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
    #[serde(default)]
    name: String,
}

#[derive(Deserialize)]
struct Diagnostic {
    level: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    spans: Vec<serde_json::Value>,
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

/// The `cargo` to run: the one that started us, else the one on `PATH`.
pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}

/// Builds the check binaries of `lessons` with one `cargo build --tests --keep-going`, in
/// `target_dir` when given (else cargo's default), and collects the executables, the first error
/// and the warnings of each lesson's crate.
pub fn build(
    root: &Path,
    lessons: &[&Lesson],
    solutions: bool,
    target_dir: Option<&Path>,
) -> Result<BuildOutput, String> {
    let mut cmd = cargo();
    cmd.current_dir(root)
        .args(["build", "--tests", "--keep-going", "--message-format=json"])
        .env_remove("RUSTFLAGS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = target_dir {
        cmd.env("CARGO_TARGET_DIR", dir);
    }
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

    let mut binaries: HashMap<String, Vec<CheckBinary>> = HashMap::new();
    let mut errors: HashMap<String, String> = HashMap::new();
    let mut warnings: HashMap<String, Vec<String>> = HashMap::new();
    let mut first_dependency_error: Option<String> = None;
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<Message>(line) else {
            continue;
        };
        match msg.reason.as_str() {
            "compiler-artifact" => {
                let Some(target) = msg.target.as_ref() else {
                    continue;
                };
                if !target.kind.iter().any(|k| k == "test") {
                    continue;
                }
                if let (Some(exe), Some(lesson)) = (msg.executable, lesson_for(&msg.manifest_path))
                {
                    let hidden = target.name == lesson.hidden_target();
                    if hidden || target.name == lesson.check_target() {
                        binaries
                            .entry(lesson.id.clone())
                            .or_default()
                            .push(CheckBinary {
                                target: target.name.clone(),
                                exe,
                                hidden,
                            });
                    }
                }
            }
            "compiler-message" => {
                let Some(diag) = msg.message else { continue };
                let lesson = lesson_for(&msg.manifest_path);
                match diag.level.as_str() {
                    "error" => {
                        let text = trim_error(diag.rendered.as_deref().unwrap_or("error"), 12);
                        match lesson {
                            Some(lesson) => {
                                errors.entry(lesson.id.clone()).or_insert(text);
                            }
                            None => {
                                first_dependency_error.get_or_insert(text);
                            }
                        }
                    }
                    "warning" if !diag.spans.is_empty() || !is_summary(&diag.message) => {
                        if let Some(lesson) = lesson {
                            let text =
                                trim_error(diag.rendered.as_deref().unwrap_or(&diag.message), 12);
                            let list = warnings.entry(lesson.id.clone()).or_default();
                            if !list.contains(&text) {
                                list.push(text);
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let mut result: HashMap<String, Built> = HashMap::new();
    for lesson in lessons {
        let mut bins = binaries.remove(&lesson.id).unwrap_or_default();
        bins.sort_by_key(|b| b.hidden);
        bins.dedup_by(|a, b| a.hidden == b.hidden);
        let complete = bins.iter().any(|b| !b.hidden)
            && (!lesson.has_hidden() || bins.iter().any(|b| b.hidden));
        let built = if complete {
            Built::Ok(bins)
        } else if let Some(err) = errors.remove(&lesson.id) {
            Built::Failed(err)
        } else {
            let why = first_dependency_error.clone().unwrap_or_else(|| {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            });
            let missing = if bins.iter().any(|b| !b.hidden) {
                format!(
                    "no hidden-check binary (test target `{}`) was built for {}",
                    lesson.hidden_target(),
                    lesson.id
                )
            } else {
                format!("no check binary was built for {}", lesson.id)
            };
            Built::Failed(format!("{missing}:\n{why}"))
        };
        result.insert(lesson.id.clone(), built);
    }
    Ok(BuildOutput {
        lessons: result,
        warnings,
    })
}

/// `"3 warnings emitted"`-style summaries, which are not warnings of their own.
fn is_summary(message: &str) -> bool {
    let words: Vec<&str> = message.split_whitespace().collect();
    matches!(words.as_slice(), [n, w, "emitted"] if n.parse::<u32>().is_ok() && w.starts_with("warning"))
        || message.contains("warnings emitted")
        || message.contains("warning emitted")
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

    #[test]
    fn warning_summaries_are_not_warnings() {
        assert!(super::is_summary("2 warnings emitted"));
        assert!(super::is_summary("1 warning emitted"));
        assert!(!super::is_summary("unused variable: `x`"));
    }
}
