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
//! `serde_derive`) was compiled again first thing in official grading's own target folder. The grader's records of misconceptions embed
//! observations through the same traits.

use crate::Observation;
use serde_core::de::{Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_core::ser::SerializeMap;
use std::fmt;

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
        deserializer.deserialize_map(ObservationVisitor)
    }
}

/// The fields an observation can have, in the order of [`Fields`]' slots.
const KEYS: [&str; 7] = [
    "kind", "label", "passed", "message", "name", "text", "exact",
];

/// A field's value as far as observations go: the check process writes these lines, so anything
/// else (numbers, arrays, objects) is skipped as it is read, never kept.
enum Scalar {
    Text(String),
    Flag(bool),
    Other,
}

/// One slot per key of [`KEYS`], filled as the object is read (in any order).
struct Fields([Option<Scalar>; KEYS.len()]);

impl Fields {
    fn slot(&mut self, key: &str) -> &mut Option<Scalar> {
        let i = KEYS.iter().position(|k| *k == key).expect("a key of KEYS");
        &mut self.0[i]
    }

    fn text(&mut self, key: &str) -> Result<String, String> {
        match self.slot(key).take() {
            Some(Scalar::Text(text)) => Ok(text),
            Some(_) => Err(format!("field `{key}` is not a string")),
            None => Err(format!("missing field `{key}`")),
        }
    }

    fn flag(&mut self, key: &str) -> Result<Option<bool>, String> {
        match self.slot(key).take() {
            Some(Scalar::Flag(flag)) => Ok(Some(flag)),
            Some(_) => Err(format!("field `{key}` is not true or false")),
            None => Ok(None),
        }
    }

    /// The observation the fields describe, or what is wrong with them. Fields its kind does not
    /// have are ignored, whatever their type.
    fn observation(mut self) -> Result<Observation, String> {
        let required = |flag: Option<bool>, key: &str| flag.ok_or(format!("missing field `{key}`"));
        Ok(match self.text("kind")?.as_str() {
            "begin" => Observation::Begin,
            "end" => Observation::End,
            "assert" => Observation::Assert {
                label: self.text("label")?,
                passed: required(self.flag("passed")?, "passed")?,
                message: self.text("message")?,
            },
            "snapshot" => Observation::Snapshot {
                name: self.text("name")?,
                text: self.text("text")?,
                exact: self.flag("exact")?.unwrap_or(false),
            },
            other => return Err(format!("unknown kind `{other}`")),
        })
    }
}

struct ObservationVisitor;

impl<'de> Visitor<'de> for ObservationVisitor {
    type Value = Observation;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an observation, a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Observation, A::Error> {
        let mut fields = Fields([const { None }; KEYS.len()]);
        while let Some(key) = map.next_key::<String>()? {
            if KEYS.contains(&key.as_str()) {
                let slot = fields.slot(&key);
                if slot.is_some() {
                    return Err(A::Error::custom(format!("duplicate field `{key}`")));
                }
                *slot = Some(map.next_value::<Scalar>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        fields.observation().map_err(A::Error::custom)
    }
}

impl<'de> serde_core::Deserialize<'de> for Scalar {
    fn deserialize<D: serde_core::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_str<E: serde_core::de::Error>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar::Text(v.to_owned()))
    }
    fn visit_string<E: serde_core::de::Error>(self, v: String) -> Result<Scalar, E> {
        Ok(Scalar::Text(v))
    }
    fn visit_bool<E: serde_core::de::Error>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Flag(v))
    }
    fn visit_i64<E: serde_core::de::Error>(self, _: i64) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_u64<E: serde_core::de::Error>(self, _: u64) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_f64<E: serde_core::de::Error>(self, _: f64) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_unit<E: serde_core::de::Error>(self) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Scalar, A::Error> {
        IgnoredAny.visit_seq(seq).map(|_| Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Scalar, A::Error> {
        IgnoredAny.visit_map(map).map(|_| Scalar::Other)
    }
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
        assert!(why(r#"{"kind":"end","kind":"end"}"#).contains("duplicate field `kind`"));
    }

    /// The lines come from the check process: what an observation does not have is skipped as it
    /// is read (never built in memory), whatever its type, and so is a field its kind lacks.
    #[test]
    fn fields_an_observation_does_not_have_are_skipped() {
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        let line = format!(
            r#"{{"x":{deep},"y":{{"a":[1,-2,3.5,null,"s",true]}},"label":7,"kind":"begin","z":null}}"#
        );
        assert_eq!(Observation::from_json(&line), Some(Observation::Begin));
        // Far past serde_json's recursion limit: skipped without recursing (no stack to exhaust).
        let deeper = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
        assert_eq!(
            Observation::from_json(&format!(r#"{{"kind":"begin","x":{deeper}}}"#)),
            Some(Observation::Begin)
        );
        // In a field the kind has: not a string, so no observation (and no crash).
        assert_eq!(
            Observation::from_json(&format!(
                r#"{{"kind":"assert","label":{deeper},"passed":true,"message":""}}"#
            )),
            None
        );
    }
}
