//! A check as the test harness names it.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A check's test function as libtest lists it: its full path in the test target
/// (`hidden::attention_is_softmax_of_scores`), made once from a listing. [`CheckId::name`] is the
/// name `course.toml` gives the check, the path's last segment. Serialized as the full path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CheckId(String);

impl CheckId {
    /// The check listed as `full` (libtest's name, with its module path).
    pub fn new(full: impl Into<String>) -> Self {
        Self(full.into())
    }

    /// The full path, as the harness takes it back (`--exact`).
    pub fn full(&self) -> &str {
        &self.0
    }

    /// The check's name in `course.toml`: the path's last segment.
    pub fn name(&self) -> &str {
        self.0.rsplit("::").next().unwrap_or(&self.0)
    }

    /// Whether this is the check `course.toml` calls `name`.
    pub fn is(&self, name: &str) -> bool {
        self.name() == name
    }
}

impl fmt::Display for CheckId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_id_keeps_the_full_path_and_names_its_last_segment() {
        let id = CheckId::new("hidden::variants::softmax_rows_sum_to_one");
        assert_eq!(id.full(), "hidden::variants::softmax_rows_sum_to_one");
        assert_eq!(id.name(), "softmax_rows_sum_to_one");
        assert!(id.is("softmax_rows_sum_to_one"));
        assert!(!id.is("variants::softmax_rows_sum_to_one"));
        assert_eq!(id.to_string(), id.full());
        // A test at the target's root has no module path.
        assert_eq!(CheckId::new("shape").name(), "shape");
    }

    #[test]
    fn a_check_id_is_stored_as_its_full_path() {
        let id = CheckId::new("checks::shape");
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"checks::shape\"");
        assert_eq!(serde_json::from_str::<CheckId>(&json).unwrap(), id);
    }
}
