//! Shape errors that say what was expected and what arrived.
