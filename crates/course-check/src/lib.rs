//! Snapshot helpers.
