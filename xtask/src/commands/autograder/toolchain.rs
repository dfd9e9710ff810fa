//! The Rust toolchain a grading platform installs.

use std::path::Path;

/// The Rust toolchain the platforms install: `rust-toolchain.toml`'s channel when the course has
/// one, else the version of the `rustc` on this machine (e.g. `1.95.0`), else `stable`.
pub fn toolchain(root: &Path) -> String {
    let pinned = std::fs::read_to_string(root.join("rust-toolchain.toml"))
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .and_then(|t| {
            t.get("toolchain")?
                .get("channel")?
                .as_str()
                .map(str::to_owned)
        });
    pinned.unwrap_or_else(|| {
        std::process::Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .split_whitespace()
                    .nth(1)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| "stable".to_owned())
    })
}
