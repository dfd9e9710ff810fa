//! What a check process observed, read the same way by the judge and by the misconception
//! records: the body between `begin` and `end`, and a snapshot's tolerance.

use check_protocol::Observation;

/// The tolerance of a snapshot compared exactly or not.
pub fn tolerance(exact: bool) -> f64 {
    if exact {
        0.0
    } else {
        check_protocol::TOLERANCE
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
