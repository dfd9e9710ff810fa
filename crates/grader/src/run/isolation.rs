//! How check processes are kept from the grader's files: the report's `isolation`.

use serde::{Deserialize, Serialize};

/// The report's name for the container mode (`crate::run::container`).
pub const CONTAINER_MODE: &str = "container-uid";

/// The isolation the sandbox gives check processes, written as the report's `isolation` string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Isolation {
    /// No sandbox: checks run as the grader does.
    #[default]
    None,
    /// Landlock and namespaces, with the kernel's Landlock ABI version (`landlock-abi-N`).
    Landlock {
        /// The ABI version the kernel enforced.
        abi: u32,
    },
    /// A user of its own per check, in a container without Landlock (`container-uid`; see
    /// [`crate::run::container`]).
    ContainerUid,
}

/// Whether checks and builds must be sandboxed: official grading requires it unless told
/// otherwise (`--allow-unsandboxed`); local grading, and the trusted reference runs, do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sandbox {
    /// Refuse to grade without one.
    Required,
    /// Grade anyway, unofficially (`--allow-unsandboxed`), or start checks directly.
    Optional,
}

impl Isolation {
    /// The isolation named `text` (`none`, `container-uid`, `landlock-abi-N`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "none" => Some(Self::None),
            CONTAINER_MODE => Some(Self::ContainerUid),
            _ => {
                let abi = text.strip_prefix("landlock-abi-")?;
                // `u32::from_str` takes a leading `+`; the report's schema does not.
                if abi.is_empty() || !abi.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                abi.parse().ok().map(|abi| Self::Landlock { abi })
            }
        }
    }

    /// True when check processes are sandboxed at all.
    pub fn is_enforced(self) -> bool {
        self != Self::None
    }
}

impl std::fmt::Display for Isolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::None => f.write_str("none"),
            Self::Landlock { abi } => write!(f, "landlock-abi-{abi}"),
            Self::ContainerUid => f.write_str(CONTAINER_MODE),
        }
    }
}

impl From<Isolation> for String {
    fn from(isolation: Isolation) -> Self {
        isolation.to_string()
    }
}

impl TryFrom<String> for Isolation {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::parse(&text).ok_or_else(|| format!("unknown isolation `{text}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_isolation_is_written_as_the_report_names_it() {
        for (isolation, text) in [
            (Isolation::None, "none"),
            (Isolation::ContainerUid, "container-uid"),
            (Isolation::Landlock { abi: 6 }, "landlock-abi-6"),
        ] {
            assert_eq!(isolation.to_string(), text);
            assert_eq!(Isolation::parse(text), Some(isolation));
            let json = serde_json::to_string(&isolation).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(serde_json::from_str::<Isolation>(&json).unwrap(), isolation);
        }
        for wrong in ["", "landlock-abi-", "landlock-abi-+1", "landlock", "None"] {
            assert_eq!(Isolation::parse(wrong), None, "{wrong}");
        }
    }
}
