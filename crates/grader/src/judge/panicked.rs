//! Misconceptions that panic instead of giving wrong numbers (keys not transposed: a shape
//! error): what a record keeps of the panic, and when a student's panic is the same one.

use crate::judge::verdict::panic_of;
use check_protocol::TODO_PREFIX;
use serde::{Deserialize, Serialize};

/// The panic that stopped a planted misconception's check, without its file and line (they
/// differ between the reference and a student's file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Panic {
    /// Its message, as the verdict quotes it.
    pub message: String,
    /// The innermost exercise function on the stack when it panicked, if any (none when the check
    /// itself stopped on an error the function returned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exercise: Option<String>,
}

/// How a run stopped with a panic: its message and the functions on its stack, innermost
/// first (none without a backtrace).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Panicked {
    /// The panic's message.
    pub message: String,
    /// The functions of the printed backtrace, without closures and hashes.
    pub functions: Vec<String>,
}

impl Panicked {
    /// The panic a check's output shows, unless it is a `todo!()` (not started, not a mistake).
    pub fn of(output: &str) -> Option<Self> {
        let (_, message) = panic_of(output)?;
        if message.starts_with(TODO_PREFIX) {
            return None;
        }
        let functions = output
            .lines()
            .skip_while(|l| !l.starts_with("stack backtrace"))
            .filter_map(|l| {
                let (n, name) = l.trim().split_once(": ")?;
                n.parse::<usize>().ok().map(|_| function_name(name))
            })
            .collect();
        Some(Self { message, functions })
    }

    /// The innermost function of the stack named like one of `exercises`.
    pub fn exercise<'e>(
        &self,
        exercises: impl IntoIterator<Item = &'e str> + Clone,
    ) -> Option<String> {
        self.functions.iter().find_map(|f| {
            let last = f.rsplit("::").next().unwrap_or(f);
            exercises
                .clone()
                .into_iter()
                .find(|e| *e == last)
                .map(str::to_owned)
        })
    }

    /// True when this is the recorded panic: the same message (a visible check's inputs are
    /// fixed, so the shapes it quotes are the same on every run), and, when both stacks are
    /// known, inside the same exercise.
    pub fn is(&self, recorded: &Panic) -> bool {
        self.message == recorded.message
            && match &recorded.exercise {
                Some(e) if !self.functions.is_empty() => self
                    .functions
                    .iter()
                    .any(|f| f.rsplit("::").next() == Some(e)),
                _ => true,
            }
    }
}

/// A backtrace frame's function without its hash and closure suffixes.
fn function_name(frame: &str) -> String {
    let mut name = frame.trim();
    loop {
        let before = name;
        if let Some(rest) = name.strip_suffix("::{{closure}}") {
            name = rest;
        }
        if let Some((rest, hash)) = name.rsplit_once("::h")
            && hash.len() == 16
            && hash.chars().all(|c| c.is_ascii_hexdigit())
        {
            name = rest;
        }
        if name == before {
            return name.to_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACED: &str = "thread 'checks::c' panicked at /home/r/.cargo/registry/src/ndarray-0.16.1/src/linalg/impl_linalg.rs:9:5:\n\
        ndarray: inputs 4 × 3 and 4 × 3 are not compatible for matrix multiplication\n\
        stack backtrace:\n   0: __rustc::rust_begin_unwind\n             at /rustc/x/library/std/src/panicking.rs:1:1\n   \
        1: ndarray::linalg::dot_shape_error\n   \
        2: lesson03::misconceptions::keys_not_transposed::attention_scores::{{closure}}\n             at ./solutions/lesson03/src/misconceptions.rs:3:3\n   \
        3: lesson03::exercises::parallel_attention::h0123456789abcdef\n   \
        4: checks::c\n";

    #[test]
    fn a_panic_is_its_message_and_the_exercise_it_happened_in() {
        let p = Panicked::of(TRACED).expect("a panic");
        assert_eq!(
            p.message,
            "ndarray: inputs 4 × 3 and 4 × 3 are not compatible for matrix multiplication"
        );
        let exercises = ["parallel_attention", "attention_scores"];
        assert_eq!(p.exercise(exercises), Some("attention_scores".into()));
        let recorded = Panic {
            message: p.message.clone(),
            exercise: Some("attention_scores".into()),
        };
        assert!(p.is(&recorded));
        // Without a backtrace only the message can tell.
        let bare = Panicked {
            functions: Vec::new(),
            ..p.clone()
        };
        assert!(bare.is(&recorded));
        // The same message from another exercise, or another message: another mistake.
        let elsewhere = Panic {
            exercise: Some("masked_softmax".into()),
            ..recorded.clone()
        };
        assert!(!p.is(&elsewhere));
        let other = Panicked {
            message: "index out of bounds: the len is 3 but the index is 3".into(),
            ..p
        };
        assert!(!other.is(&recorded));
        let todo = "thread 'c' panicked at src/e.rs:1:1:\nnot yet implemented: attention_scores\n";
        assert_eq!(Panicked::of(todo), None);
    }
}
