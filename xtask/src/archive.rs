//! Unpacking a student's submission archive (`.zip`, `.tar.gz` or `.tgz`) without trusting it.
//!
//! Every entry name must be a plain relative path: an absolute name, a `..` component or an empty
//! name stops the extraction with an error. Symbolic links are allowed only when their target stays
//! inside the archive (checked on the link's text, and again on the unpacked tree); they are
//! created after every file, so no file is ever written through one. Hard links, devices and
//! FIFOs are refused. The unpacked size and the number of entries are capped, counting the bytes
//! actually written, not the sizes the archive claims.

use anyhow::{Context as _, Result, anyhow, bail};
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// Limits on what one archive may unpack to.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Total bytes of all files.
    pub max_bytes: u64,
    /// Number of entries (files, folders and links).
    pub max_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 256 * 1024 * 1024,
            max_entries: 20_000,
        }
    }
}

/// The archive formats a submission may come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A `.zip` file.
    Zip,
    /// A gzip-compressed tarball: `.tar.gz` or `.tgz`.
    TarGz,
}

/// The archive kind of a file name, with the name stripped of its extension (the student's id).
pub fn kind(name: &str) -> Option<(Kind, &str)> {
    let lower = name.to_ascii_lowercase();
    for (ext, kind) in [
        (".tar.gz", Kind::TarGz),
        (".tgz", Kind::TarGz),
        (".zip", Kind::Zip),
    ] {
        if lower.ends_with(ext) && lower.len() > ext.len() {
            return Some((kind, &name[..name.len() - ext.len()]));
        }
    }
    None
}

/// An entry name as a safe relative path: no root, no prefix, no `..`; `.` components dropped.
pub fn safe_relative(name: &str) -> Result<PathBuf> {
    let name = name.replace('\\', "/");
    if name.starts_with('/') {
        bail!("archive entry `{name}` has an absolute path");
    }
    let mut out = PathBuf::new();
    for c in Path::new(&name).components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                bail!("archive entry `{name}` leaves the archive (`..` path traversal)");
            }
            Component::RootDir | Component::Prefix(_) => {
                bail!("archive entry `{name}` has an absolute path");
            }
        }
    }
    if out.as_os_str().is_empty() {
        bail!("archive entry `{name}` has an empty path");
    }
    Ok(out)
}

/// True when the link at `link` (relative to the archive root) pointing to `target` resolves,
/// lexically, inside the archive.
pub fn link_stays_inside(link: &Path, target: &str) -> bool {
    if target.starts_with('/') || target.starts_with('\\') {
        return false;
    }
    let mut depth: Vec<String> = link
        .parent()
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    for c in Path::new(target).components() {
        match c {
            Component::Normal(p) => depth.push(p.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                if depth.pop().is_none() {
                    return false;
                }
            }
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

/// Counts what has been unpacked so far against the limits.
struct Budget {
    limits: Limits,
    bytes: u64,
    entries: usize,
}

impl Budget {
    fn entry(&mut self) -> Result<()> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            bail!("archive has more than {} entries", self.limits.max_entries);
        }
        Ok(())
    }

    /// Copies `from` into a new file at `to`, stopping at the size limit.
    fn copy(&mut self, from: &mut dyn Read, to: &Path) -> Result<()> {
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let mut file =
            std::fs::File::create(to).with_context(|| format!("cannot create {}", to.display()))?;
        let left = self.limits.max_bytes - self.bytes;
        let mut limited = from.take(left + 1);
        let n = std::io::copy(&mut limited, &mut file)
            .with_context(|| format!("cannot unpack {}", to.display()))?;
        file.flush().context("cannot write")?;
        if n > left {
            bail!(
                "archive unpacks to more than {} MiB",
                self.limits.max_bytes / (1024 * 1024)
            );
        }
        self.bytes += n;
        Ok(())
    }
}

/// Creates the symbolic links last, once every file is written.
fn make_links(dest: &Path, links: &[(PathBuf, String)]) -> Result<()> {
    for (at, target) in links {
        let path = dest.join(at);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(target, &path)
            .with_context(|| format!("cannot create link {}", at.display()))?;
        #[cfg(not(unix))]
        let _ = (target, path);
    }
    Ok(())
}

fn check_link(at: &Path, target: &str) -> Result<()> {
    if link_stays_inside(at, target) {
        Ok(())
    } else {
        Err(anyhow!(
            "archive entry `{}` is a symbolic link out of the archive (to `{target}`)",
            at.display()
        ))
    }
}

/// Unpacks `archive` into the existing folder `dest`.
pub fn extract(archive: &Path, kind: Kind, dest: &Path, limits: Limits) -> Result<()> {
    let file = std::fs::File::open(archive)
        .with_context(|| format!("cannot open {}", archive.display()))?;
    let mut budget = Budget {
        limits,
        bytes: 0,
        entries: 0,
    };
    let mut links = Vec::new();
    match kind {
        Kind::Zip => {
            let mut zip = zip::ZipArchive::new(file).context("not a valid zip archive")?;
            for i in 0..zip.len() {
                budget.entry()?;
                let mut entry = zip
                    .by_index(i)
                    .with_context(|| format!("bad zip entry #{i}"))?;
                let name = entry
                    .name()
                    .with_context(|| format!("bad zip entry name #{i}"))?
                    .into_owned();
                let rel = safe_relative(&name)?;
                if entry.is_dir() {
                    std::fs::create_dir_all(dest.join(&rel))
                        .with_context(|| format!("cannot create {}", rel.display()))?;
                } else if entry.is_symlink() {
                    let mut target = String::new();
                    (&mut entry)
                        .take(4096)
                        .read_to_string(&mut target)
                        .with_context(|| format!("bad link {}", rel.display()))?;
                    check_link(&rel, &target)?;
                    links.push((rel, target));
                } else {
                    budget.copy(&mut entry, &dest.join(&rel))?;
                }
            }
        }
        Kind::TarGz => {
            let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
            let entries = tar.entries().context("not a valid .tar.gz archive")?;
            for entry in entries {
                let mut entry = entry.context("not a valid .tar.gz archive")?;
                let kind = entry.header().entry_type();
                if matches!(
                    kind,
                    tar::EntryType::XGlobalHeader | tar::EntryType::XHeader
                ) {
                    continue;
                }
                budget.entry()?;
                let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
                let rel = safe_relative(&name)?;
                match kind {
                    tar::EntryType::Directory => std::fs::create_dir_all(dest.join(&rel))
                        .with_context(|| format!("cannot create {}", rel.display()))?,
                    tar::EntryType::Regular | tar::EntryType::Continuous => {
                        budget.copy(&mut entry, &dest.join(&rel))?
                    }
                    tar::EntryType::Symlink => {
                        let target = entry
                            .link_name_bytes()
                            .map(|b| String::from_utf8_lossy(&b).into_owned())
                            .unwrap_or_default();
                        check_link(&rel, &target)?;
                        links.push((rel, target));
                    }
                    other => {
                        bail!(
                            "archive entry `{}` is a {other:?} entry (only files, folders and links inside are accepted)",
                            rel.display()
                        );
                    }
                }
            }
        }
    }
    make_links(dest, &links)?;
    escaping_link(dest).map_or(Ok(()), |link| Err(anyhow!(link)))
}

/// The first symbolic link under `dir` that resolves outside `dir` (or cannot be resolved and
/// points outside it lexically), described for a gradebook row.
pub fn escaping_link(dir: &Path) -> Option<String> {
    let root = std::fs::canonicalize(dir).ok()?;
    fn walk(d: &Path, root: &Path, base: &Path) -> Option<String> {
        for entry in std::fs::read_dir(d).ok()?.flatten() {
            let path = entry.path();
            let kind = entry.file_type().ok()?;
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).ok()?;
                let rel = path.strip_prefix(base).unwrap_or(&path).to_path_buf();
                let inside = match std::fs::canonicalize(&path) {
                    Ok(real) => real.starts_with(root),
                    Err(_) => link_stays_inside(&rel, &target.to_string_lossy()),
                };
                if !inside {
                    return Some(format!(
                        "`{}` is a symbolic link out of the submission (to `{}`)",
                        rel.display(),
                        target.display()
                    ));
                }
            } else if kind.is_dir()
                && let Some(found) = walk(&path, root, base)
            {
                return Some(found);
            }
        }
        None
    }
    walk(dir, &root, dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_must_stay_inside() {
        assert_eq!(safe_relative("./a/b.rs").unwrap(), PathBuf::from("a/b.rs"));
        assert!(safe_relative("../evil").is_err());
        assert!(safe_relative("a/../../evil").is_err());
        assert!(safe_relative("/etc/passwd").is_err());
        assert!(safe_relative("\\windows\\evil").is_err());
        assert!(safe_relative("./").is_err());
    }

    #[test]
    fn links_are_judged_from_their_folder() {
        assert!(link_stays_inside(Path::new("a/b/link"), "../c"));
        assert!(!link_stays_inside(Path::new("a/link"), "../../c"));
        assert!(!link_stays_inside(Path::new("link"), "/etc/passwd"));
        assert!(link_stays_inside(Path::new("link"), "./x/../y"));
    }

    #[test]
    fn archive_names_give_the_student_id() {
        assert_eq!(kind("alice.zip"), Some((Kind::Zip, "alice")));
        assert_eq!(kind("bob.TAR.GZ"), Some((Kind::TarGz, "bob")));
        assert_eq!(kind("carol.tgz"), Some((Kind::TarGz, "carol")));
        assert_eq!(kind(".zip"), None);
        assert_eq!(kind("notes.txt"), None);
    }
}
