//! The course secret: 32 random bytes, written in hex to `course-secret` at the course root.
//!
//! Each course makes its own (`cargo xtask secret`) and keeps it out of git (`.gitignore`): with
//! it, anyone could compute every student's variant inputs in advance. `cargo xtask dist` leaves it
//! out, the grading copy of a submission never holds it, and no check process can read it. Only
//! official grading reads it; local grading draws its variants from a public key.

use anyhow::{Context as _, Result, bail};
use std::path::Path;

/// The secret's file, relative to the course root.
pub const FILE: &str = "course-secret";

/// How to make a secret, for error messages.
const HELP: &str = "help: run `cargo xtask secret` once to create it (32 random bytes in hex, mode \
                    600, ignored by git), and keep it safe beside the solutions: a new one changes \
                    every student's variant inputs";

/// The course secret at `root`, or an error that says how to create it.
pub fn load(root: &Path) -> Result<[u8; 32]> {
    let path = root.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "{FILE} is missing: the variant checks draw each student's inputs from it\n  {HELP}"
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    parse(text.trim()).with_context(|| {
        format!(
            "{FILE} is not 64 hexadecimal digits (32 bytes)\n  {HELP} (`cargo xtask secret \
             --replace` replaces this one)"
        )
    })
}

/// 64 hexadecimal digits as 32 bytes.
fn parse(hex: &str) -> Result<[u8; 32]> {
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("not 64 hexadecimal digits");
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)?;
    }
    Ok(out)
}

/// Writes a new secret from `/dev/urandom` to `root`, readable by its owner only. An existing one
/// is replaced only when `replace` is set (then every student's variant inputs change).
#[cfg(feature = "instructor")]
pub fn create(root: &Path, replace: bool) -> Result<std::path::PathBuf> {
    use std::io::{Read as _, Write as _};
    let path = root.join(FILE);
    if !replace && std::fs::symlink_metadata(&path).is_ok() {
        bail!(
            "{FILE} exists already: a new one would change every student's variant inputs (grades \
             given with the old one could not be reproduced)\n  help: run `cargo xtask secret \
             --replace` if that is what you want"
        );
    }
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("cannot read /dev/urandom")?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    // Written beside it, then renamed over it: a secret is never half written, nor ever readable
    // by others.
    let fresh = root.join(format!(".{FILE}.new"));
    let _ = std::fs::remove_file(&fresh);
    let mut options = std::fs::File::options();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&fresh)
        .with_context(|| format!("cannot create {}", fresh.display()))?;
    file.write_all(format!("{hex}\n").as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write {}", fresh.display()))?;
    std::fs::rename(&fresh, &path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// What is wrong with how the secret at `root` is kept (none when there is none): readable by
/// others than its owner, or tracked by git (then every clone of the course holds it).
#[cfg(feature = "instructor")]
pub fn exposure(root: &Path) -> Vec<String> {
    let path = root.join(FILE);
    let Ok(meta) = std::fs::metadata(&path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            out.push(format!(
                "{FILE} is readable by others than its owner (mode {mode:o}): run `chmod 600 {FILE}`"
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = meta;
    let tracked = std::process::Command::new("git")
        .args(["ls-files", "--error-unmatch", "--", FILE])
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    if tracked {
        out.push(format!(
            "{FILE} is tracked by git, so every clone of the course holds it: run `git rm --cached \
             {FILE}`, add it to .gitignore and make a new one (`cargo xtask secret --replace`)"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    // Only the instructors' build creates a secret.
    #[cfg(feature = "instructor")]
    use super::*;

    #[test]
    #[cfg(feature = "instructor")]
    fn a_secret_is_created_once_for_its_owner_and_replaced_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let err = format!("{:#}", load(dir.path()).unwrap_err());
        assert!(err.contains("cargo xtask secret"), "{err}");
        let path = create(dir.path(), false).unwrap();
        let first = load(dir.path()).unwrap();
        assert_ne!(first, [0u8; 32]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        assert!(exposure(dir.path()).is_empty());
        let err = format!("{:#}", create(dir.path(), false).unwrap_err());
        assert!(
            err.contains("every student's variant inputs") && err.contains("--replace"),
            "{err}"
        );
        assert_eq!(load(dir.path()).unwrap(), first, "not replaced unasked");
        create(dir.path(), true).unwrap();
        assert_ne!(load(dir.path()).unwrap(), first, "replaced when asked");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let warned = exposure(dir.path());
            assert!(
                warned.len() == 1 && warned[0].contains("chmod 600"),
                "{warned:?}"
            );
        }
        // Tracked by git: every clone would hold it.
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .args(args)
                .current_dir(dir.path())
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if git(&["init", "-q"]) && git(&["add", FILE]) {
            let warned = exposure(dir.path());
            assert!(
                warned.iter().any(|w| w.contains("tracked by git")),
                "{warned:?}"
            );
        }
        std::fs::write(&path, "abc\n").unwrap();
        let err = format!("{:#}", load(dir.path()).unwrap_err());
        assert!(
            err.contains("64 hexadecimal") && err.contains("help:"),
            "{err}"
        );
    }
}
