//! What a check process observed, read the same way by the judge and by the misconception
//! records: the body between `begin` and `end`, and a snapshot's tolerance.

use check_protocol::Observation;

/// How a snapshot's numbers are compared: exactly (data movement, `assert_exact_snapshot!`) or
/// within [`check_protocol::TOLERANCE`] (`assert_close_snapshot!`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Snapshot {
    /// Every number as it is.
    Exact,
    /// Numbers within the tolerance.
    Close,
}

impl From<bool> for Snapshot {
    /// The comparison an expected snapshot's `exact` flag names (the protocol's and the
    /// expected files' form).
    fn from(exact: bool) -> Self {
        if exact { Self::Exact } else { Self::Close }
    }
}

impl Snapshot {
    /// The tolerance the snapshot's numbers are compared within.
    pub fn tolerance(self) -> f64 {
        match self {
            Self::Exact => 0.0,
            Self::Close => check_protocol::TOLERANCE,
        }
    }
}

/// The observations between `begin` and `end`, and whether both were made.
pub fn body(observations: &[Observation]) -> (Vec<Observation>, bool, bool) {
    let began = matches!(observations.first(), Some(Observation::Begin));
    let ended = began && matches!(observations.last(), Some(Observation::End));
    let body = observations
        .iter()
        .skip(usize::from(began))
        .filter(|o| !matches!(o, Observation::End))
        .cloned()
        .collect();
    (body, began, ended)
}
