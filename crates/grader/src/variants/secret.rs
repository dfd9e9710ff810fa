//! The course secret: 32 random bytes, written in hex to `course-secret` at the course root.
//!
//! It stays with the instructors like `solutions/` (`cargo xtask dist` leaves it out, the grading
//! copy of a submission never holds it, and no check process can read it): with it, anyone could
//! compute every student's variant inputs in advance.

use anyhow::{Context as _, Result, bail};
use std::path::Path;

/// The secret's file, relative to the course root.
pub const FILE: &str = "course-secret";

/// How to make a secret, for error messages.
const HELP: &str = "help: run `cargo xtask secret` once to create it (32 random bytes in hex), and \
                    keep it with the solutions: changing it changes every student's variant inputs";

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
        format!("{FILE} is not 64 hexadecimal digits (32 bytes)\n  {HELP} (delete the file first)")
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

/// Writes a new secret from `/dev/urandom` to `root`, readable by its owner only; refuses to
/// replace one.
#[cfg(feature = "instructor")]
pub fn create(root: &Path) -> Result<std::path::PathBuf> {
    use std::io::{Read as _, Write as _};
    let path = root.join(FILE);
    if std::fs::symlink_metadata(&path).is_ok() {
        bail!(
            "{FILE} exists already: replacing it would change every student's variant inputs\n  \
             help: delete it first if that is what you want"
        );
    }
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("cannot read /dev/urandom")?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut options = std::fs::File::options();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(format!("{hex}\n").as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "instructor")]
    fn a_secret_is_created_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let err = format!("{:#}", load(dir.path()).unwrap_err());
        assert!(err.contains("cargo xtask secret"), "{err}");
        let path = create(dir.path()).unwrap();
        let first = load(dir.path()).unwrap();
        assert_ne!(first, [0u8; 32]);
        assert!(create(dir.path()).is_err(), "never replaced");
        std::fs::write(&path, "abc\n").unwrap();
        let err = format!("{:#}", load(dir.path()).unwrap_err());
        assert!(
            err.contains("64 hexadecimal") && err.contains("help:"),
            "{err}"
        );
    }
}
