//! The JSON form of an [`Observation`]: one object, its `"kind"` first.
//!
//! ```text
//! {"kind":"begin"}
//! {"kind":"assert","label":"a == b","passed":true,"message":""}
//! {"kind":"snapshot","name":"lesson02__checks__head_two","text":"shape (1, 6, 16)\n…","exact":false}
//! {"kind":"end"}
//! ```
//!
//! Written by hand against `serde_core`'s traits, not derived: the derive macro was the only one
//! the lessons' build needed, and its proc-macro stack (`proc-macro2`, `quote`, `syn`,
//! `serde_derive`) was compiled again first thing in official grading's own target folder
//! (`docs/bench-grade.md`, "2026-12-03, late"). The grader's records of misconceptions embed
//! observations through the same traits.

use crate::Observation;
use serde_core::de::Error as _;
use serde_core::ser::SerializeMap;
use serde_json::{Map, Value};

impl Observation {
    /// The observation as one line of JSON (no newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("observations serialise")
    }

    /// Reads one line written by [`Observation::to_json`]; `None` for anything else (not JSON, an
    /// unknown kind, a missing field or one of the wrong type). Other fields are ignored.
    pub fn from_json(line: &str) -> Option<Observation> {
        serde_json::from_str(line).ok()
    }
}

impl serde_core::Serialize for Observation {
    fn serialize<S: serde_core::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Observation::Begin => map.serialize_entry("kind", "begin")?,
            Observation::End => map.serialize_entry("kind", "end")?,
            Observation::Assert {
                label,
                passed,
                message,
            } => {
                map.serialize_entry("kind", "assert")?;
                map.serialize_entry("label", label)?;
                map.serialize_entry("passed", passed)?;
                map.serialize_entry("message", message)?;
            }
            Observation::Snapshot { name, text, exact } => {
                map.serialize_entry("kind", "snapshot")?;
                map.serialize_entry("name", name)?;
                map.serialize_entry("text", text)?;
                map.serialize_entry("exact", exact)?;
            }
        }
        map.end()
    }
}

impl<'de> serde_core::Deserialize<'de> for Observation {
    fn deserialize<D: serde_core::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Object(fields) => from_fields(&fields).map_err(D::Error::custom),
            _ => Err(D::Error::custom("an observation is a JSON object")),
        }
    }
}

/// The observation an object's fields describe, or what is wrong with them.
fn from_fields(fields: &Map<String, Value>) -> Result<Observation, String> {
    let field = |key: &str| fields.get(key).ok_or(format!("missing field `{key}`"));
    let text = |key: &str| {
        field(key)?
            .as_str()
            .map(str::to_owned)
            .ok_or(format!("field `{key}` is not a string"))
    };
    let flag = |key: &str| {
        field(key)?
            .as_bool()
            .ok_or(format!("field `{key}` is not true or false"))
    };
    Ok(match text("kind")?.as_str() {
        "begin" => Observation::Begin,
        "end" => Observation::End,
        "assert" => Observation::Assert {
            label: text("label")?,
            passed: flag("passed")?,
            message: text("message")?,
        },
        "snapshot" => Observation::Snapshot {
            name: text("name")?,
            text: text("text")?,
            exact: if fields.contains_key("exact") {
                flag("exact")?
            } else {
                false
            },
        },
        other => return Err(format!("unknown kind `{other}`")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_are_the_documented_json() {
        let assert = Observation::Assert {
            label: "x == \"y\"\n".into(),
            passed: true,
            message: String::new(),
        };
        assert_eq!(
            assert.to_json(),
            r#"{"kind":"assert","label":"x == \"y\"\n","passed":true,"message":""}"#
        );
        let snapshot = Observation::Snapshot {
            name: "a__b".into(),
            text: "shape (1,)\n\u{7f}é".into(),
            exact: false,
        };
        assert_eq!(
            snapshot.to_json(),
            "{\"kind\":\"snapshot\",\"name\":\"a__b\",\"text\":\"shape (1,)\\n\u{7f}é\",\"exact\":false}"
        );
        for o in [Observation::Begin, Observation::End, assert, snapshot] {
            assert_eq!(Observation::from_json(&o.to_json()), Some(o));
        }
    }

    #[test]
    fn only_well_formed_observations_are_read() {
        let read = Observation::from_json;
        assert_eq!(
            read(r#"{"text":"t","exact":true,"name":"n","kind":"snapshot","more":1}"#),
            Some(Observation::Snapshot {
                name: "n".into(),
                text: "t".into(),
                exact: true
            })
        );
        assert_eq!(
            read(r#"{"kind":"snapshot","name":"n","text":"t"}"#),
            Some(Observation::Snapshot {
                name: "n".into(),
                text: "t".into(),
                exact: false
            })
        );
        for bad in [
            "",
            "[]",
            r#""begin""#,
            r#"{"kind":"Begin"}"#,
            r#"{"kind":1}"#,
            r#"{"kind":"assert","label":"l","passed":"yes","message":""}"#,
            r#"{"kind":"assert","label":"l","message":""}"#,
            r#"{"kind":"snapshot","name":"n","text":"t","exact":null}"#,
            r#"{"kind":"snapshot","name":"n","text":7}"#,
            r#"{"kind":"end"} trailing"#,
        ] {
            assert_eq!(read(bad), None, "{bad}");
        }
    }

    #[test]
    fn what_is_wrong_is_said() {
        let why = |line: &str| {
            serde_json::from_str::<Observation>(line)
                .unwrap_err()
                .to_string()
        };
        assert!(
            why(r#"{"kind":"assert","label":"l","message":""}"#).contains("missing field `passed`")
        );
        assert!(
            why(r#"{"kind":"snapshot","name":"n","text":7}"#)
                .contains("field `text` is not a string")
        );
        assert!(why(r#"{"kind":"oops"}"#).contains("unknown kind `oops`"));
        assert!(why("[1]").contains("a JSON object"));
    }
}
