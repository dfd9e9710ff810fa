//! Unpacking a student's submission archive (`.zip`, `.tar.gz` or `.tgz`) without trusting it:
//! entry names must be plain relative paths, links must stay inside (and are created after every
//! file, so nothing is written through one), other special entries are refused, and what an
//! archive may cost is capped before it is read ([`Limits`]). Names quoted in errors are escaped
//! and cut ([`crate::report::student_text`]).

use crate::report::student_text;
use anyhow::{Context as _, Result, anyhow, bail};
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// The largest PAX extended header read (its records: a path, a link, times, extended attributes).
const MAX_PAX_BYTES: u64 = 64 * 1024;

/// Limits on what one archive may cost, checked on the sizes headers declare before what they
/// describe is read (a `.zip`'s names, entry count and sizes before anything is unpacked), and
/// again on the bytes actually read and written.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Total bytes of all files, as declared and as written.
    pub max_bytes: u64,
    /// Number of entries (files, folders, links and global headers).
    pub max_entries: usize,
    /// Bytes of one entry's name or link target (PATH_MAX).
    pub max_name_bytes: usize,
    /// Bytes of the archive as read: a `.zip` file's size, a `.tar.gz`'s decompressed stream
    /// (headers and padding included).
    pub max_read_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 256 * 1024 * 1024,
            max_entries: 20_000,
            max_name_bytes: 4096,
            max_read_bytes: 320 * 1024 * 1024,
        }
    }
}

/// `bytes` in MiB, for messages.
fn mib(bytes: u64) -> u64 {
    bytes / (1024 * 1024)
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

/// Where an entry named `name` is unpacked, relative to the archive's root: `None` for an entry
/// to skip (the root itself, `.` or `./`, and anything under `__MACOSX/`); an error for a name
/// that is empty, absolute or leaves the archive (`..`). `.` components are dropped.
pub fn entry_path(name: &str) -> Result<Option<PathBuf>> {
    let shown = || student_text::name(name);
    if name.is_empty() {
        bail!("an archive entry has an empty name");
    }
    let name = name.replace('\\', "/");
    if name.starts_with('/') {
        bail!("archive entry `{}` has an absolute path", shown());
    }
    let mut out = PathBuf::new();
    for c in Path::new(&name).components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                bail!(
                    "archive entry `{}` leaves the archive (`..` path traversal)",
                    shown()
                );
            }
            Component::RootDir | Component::Prefix(_) => {
                bail!("archive entry `{}` has an absolute path", shown());
            }
        }
    }
    let macos_fork = out.components().next() == Some(Component::Normal("__MACOSX".as_ref()));
    Ok((!out.as_os_str().is_empty() && !macos_fork).then_some(out))
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
struct Budget<'k> {
    limits: Limits,
    bytes: u64,
    entries: usize,
    /// Whether to write the file or folder at a path (every entry is checked all the same).
    keep: &'k dyn Fn(&Path) -> bool,
}

impl Budget<'_> {
    fn entry(&mut self) -> Result<()> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            bail!("archive has more than {} entries", self.limits.max_entries);
        }
        Ok(())
    }

    fn too_big(&self) -> anyhow::Error {
        anyhow!(
            "archive unpacks to more than {} MiB",
            mib(self.limits.max_bytes)
        )
    }

    /// Refuses a name longer than the limit, from its length alone.
    fn name_length(&self, what: &str, len: u64) -> Result<()> {
        if len > self.limits.max_name_bytes as u64 {
            bail!(
                "archive entry has a {what} of {len} bytes, over the {} bytes a name may have",
                self.limits.max_name_bytes
            );
        }
        Ok(())
    }

    /// Copies `from` into a new file at `dest`/`rel`, stopping at the size limit.
    fn copy(&mut self, from: &mut dyn Read, dest: &Path, rel: &Path) -> Result<()> {
        if !(self.keep)(rel) {
            return Ok(());
        }
        let to = dest.join(rel);
        let shown = || student_text::name(&rel.to_string_lossy());
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the folder of `{}`", shown()))?;
        }
        let mut file =
            std::fs::File::create(&to).with_context(|| format!("cannot create `{}`", shown()))?;
        let left = self.limits.max_bytes - self.bytes;
        let mut limited = from.take(left + 1);
        let n = std::io::copy(&mut limited, &mut file)
            .with_context(|| format!("cannot unpack `{}`", shown()))?;
        file.flush().context("cannot write")?;
        if n > left {
            return Err(self.too_big());
        }
        self.bytes += n;
        Ok(())
    }

    /// Creates the folder `dest`/`rel`.
    fn folder(&self, dest: &Path, rel: &Path) -> Result<()> {
        if !(self.keep)(rel) {
            return Ok(());
        }
        std::fs::create_dir_all(dest.join(rel)).with_context(|| {
            format!(
                "cannot create `{}`",
                student_text::name(&rel.to_string_lossy())
            )
        })
    }
}

/// A reader that fails once more than `cap` bytes have come through it: a `.tar.gz`'s
/// decompressed stream, which a few KiB of gzip can make gigabytes long.
struct Capped<R> {
    inner: R,
    read: u64,
    cap: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.read > self.cap {
            return Err(std::io::Error::other("over the decompressed size limit"));
        }
        let left = usize::try_from(self.cap + 1 - self.read).unwrap_or(usize::MAX);
        let len = buf.len().min(left);
        let n = self.inner.read(&mut buf[..len])?;
        self.read += n as u64;
        if self.read > self.cap {
            return Err(std::io::Error::other("over the decompressed size limit"));
        }
        Ok(n)
    }
}

/// Creates the symbolic links last, once every file is written.
fn make_links(dest: &Path, links: &[(PathBuf, String)]) -> Result<()> {
    for (at, target) in links {
        let path = dest.join(at);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| {
                format!(
                    "cannot create the folder of `{}`",
                    student_text::name(&at.to_string_lossy())
                )
            })?;
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(target, &path).with_context(|| {
            format!(
                "cannot create link `{}`",
                student_text::name(&at.to_string_lossy())
            )
        })?;
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
            "archive entry `{}` is a symbolic link out of the archive (to `{}`)",
            student_text::name(&at.to_string_lossy()),
            student_text::name(target)
        ))
    }
}

/// Unpacks `archive` into the existing folder `dest`.
pub fn extract(archive: &Path, kind: Kind, dest: &Path, limits: Limits) -> Result<()> {
    unpack(archive, kind, dest, limits, &|_| true).0
}

/// [`extract`], writing only the files, folders and links whose path `keep` accepts: every entry
/// is checked as by [`extract`] (an archive it refuses is refused), the others are not written.
pub fn extract_only(
    archive: &Path,
    kind: Kind,
    dest: &Path,
    limits: Limits,
    keep: &dyn Fn(&Path) -> bool,
) -> Result<()> {
    unpack(archive, kind, dest, limits, keep).0
}

/// [`extract_only`], and the bytes of the `.tar.gz`'s decompressed stream read (0 for a `.zip`).
fn unpack(
    archive: &Path,
    kind: Kind,
    dest: &Path,
    limits: Limits,
    keep: &dyn Fn(&Path) -> bool,
) -> (Result<()>, u64) {
    let file = match std::fs::File::open(archive) {
        Ok(file) => file,
        Err(e) => return (Err(e).context("cannot open the archive"), 0),
    };
    let mut budget = Budget {
        limits,
        bytes: 0,
        entries: 0,
        keep,
    };
    let mut links = Vec::new();
    let (result, read) = match kind {
        Kind::Zip => (unzip(file, dest, &mut budget, &mut links), 0),
        Kind::TarGz => {
            let mut stream = Capped {
                inner: flate2::read::GzDecoder::new(file),
                read: 0,
                cap: limits.max_read_bytes,
            };
            let mut result = untar(&mut stream, dest, &mut budget, &mut links);
            if result.is_err() && stream.read > stream.cap {
                result = Err(anyhow!(
                    "archive decompresses to more than {} MiB (headers included)",
                    mib(stream.cap)
                ));
            }
            (result, stream.read)
        }
    };
    links.retain(|(at, _)| keep(at));
    let result = result.and_then(|()| {
        make_links(dest, &links)?;
        escaping_link(dest).map_or(Ok(()), |link| Err(anyhow!(link)))
    });
    (result, read)
}

/// Unpacks a zip file after checking its central directory: entry count, name lengths and
/// declared sizes.
fn unzip(
    file: std::fs::File,
    dest: &Path,
    budget: &mut Budget,
    links: &mut Vec<(PathBuf, String)>,
) -> Result<()> {
    let limits = budget.limits;
    // The central directory is read into memory whole: its size is bounded by the file's.
    let size = file.metadata().context("cannot read the archive")?.len();
    if size > limits.max_read_bytes {
        bail!(
            "archive is {} MiB, over the {} MiB an archive may be",
            mib(size),
            mib(limits.max_read_bytes)
        );
    }
    let mut zip = zip::ZipArchive::new(file).context("not a valid zip archive")?;
    if zip.len() > limits.max_entries {
        bail!("archive has more than {} entries", limits.max_entries);
    }
    let mut declared = 0u64;
    for i in 0..zip.len() {
        let entry = zip
            .by_index_raw(i)
            .with_context(|| format!("bad zip entry #{i}"))?;
        budget.name_length("name", entry.name_raw().len() as u64)?;
        if !entry.is_dir() {
            declared = declared.saturating_add(entry.size());
        }
    }
    if declared > limits.max_bytes {
        return Err(budget.too_big());
    }
    for i in 0..zip.len() {
        budget.entry()?;
        let mut entry = zip
            .by_index(i)
            .with_context(|| format!("bad zip entry #{i}"))?;
        let name = entry
            .name()
            .with_context(|| format!("bad zip entry name #{i}"))?
            .into_owned();
        let Some(rel) = entry_path(&name)? else {
            continue;
        };
        if entry.is_dir() {
            budget.folder(dest, &rel)?;
        } else if entry.is_symlink() {
            let mut target = String::new();
            (&mut entry)
                .take(limits.max_name_bytes as u64)
                .read_to_string(&mut target)
                .with_context(|| {
                    format!("bad link `{}`", student_text::name(&rel.to_string_lossy()))
                })?;
            check_link(&rel, &target)?;
            links.push((rel, target));
        } else {
            budget.copy(&mut entry, dest, &rel)?;
        }
    }
    Ok(())
}

/// Reads the data of an extension header (GNU long name or link, PAX records) of at most `max`
/// bytes, refusing it from its declared size when longer.
fn header_data(entry: &mut dyn Read, declared: u64, max: u64, what: &str) -> Result<Vec<u8>> {
    if declared > max {
        bail!("archive entry has a {what} of {declared} bytes, over the {max} bytes allowed");
    }
    let mut data = Vec::with_capacity(declared as usize);
    entry
        .take(declared)
        .read_to_end(&mut data)
        .context("not a valid .tar.gz archive")?;
    while data.last() == Some(&0) {
        data.pop();
    }
    Ok(data)
}

/// What GNU long-name and PAX header entries said about the next entry of a tar stream.
#[derive(Default)]
struct Pending {
    long_name: Option<Vec<u8>>,
    long_link: Option<Vec<u8>>,
    pax_path: Option<Vec<u8>>,
    pax_link: Option<Vec<u8>>,
    pax_size: Option<Vec<u8>>,
}

impl Pending {
    /// Takes in `entry` if it is a GNU long name or link or a PAX header (true), its declared
    /// size checked before its data is read.
    fn take_header(
        &mut self,
        entry: &mut dyn Read,
        kind: tar::EntryType,
        declared: u64,
        budget: &mut Budget,
    ) -> Result<bool> {
        if kind.is_gnu_longname() || kind.is_gnu_longlink() {
            let (slot, what) = if kind.is_gnu_longname() {
                (&mut self.long_name, "GNU long name")
            } else {
                (&mut self.long_link, "GNU long link")
            };
            if slot.is_some() {
                bail!("archive has two {what}s for one entry");
            }
            // `max_name` allows the name's terminating NUL.
            let max_name = budget.limits.max_name_bytes as u64 + 1;
            budget.name_length(what, declared.saturating_sub(1))?;
            *slot = Some(header_data(entry, declared, max_name, what)?);
            return Ok(true);
        }
        if kind.is_pax_local_extensions() || kind.is_pax_global_extensions() {
            let data = header_data(entry, declared, MAX_PAX_BYTES, "PAX header")?;
            if kind.is_pax_global_extensions() {
                budget.entry()?;
                return Ok(true);
            }
            for record in tar::PaxExtensions::new(&data) {
                let record = record.context("not a valid .tar.gz archive (PAX header)")?;
                match record.key_bytes() {
                    b"path" => self.pax_path = Some(record.value_bytes().to_vec()),
                    b"linkpath" => self.pax_link = Some(record.value_bytes().to_vec()),
                    b"size" => self.pax_size = Some(record.value_bytes().to_vec()),
                    _ => {}
                }
            }
            return Ok(true);
        }
        Ok(false)
    }
}

/// Unpacks a tar stream read entry by entry, raw: GNU long names and links and PAX headers come as
/// entries of their own, whose declared sizes are checked before their data is read, and apply to
/// the next entry.
fn untar(
    input: &mut dyn Read,
    dest: &Path,
    budget: &mut Budget,
    links: &mut Vec<(PathBuf, String)>,
) -> Result<()> {
    let mut tar = tar::Archive::new(input);
    let entries = tar
        .entries()
        .context("not a valid .tar.gz archive")?
        .raw(true);
    let mut pending = Pending::default();
    for entry in entries {
        let mut entry = entry.context("not a valid .tar.gz archive")?;
        let kind = entry.header().entry_type();
        let declared = entry
            .header()
            .entry_size()
            .context("not a valid .tar.gz archive")?;
        if pending.take_header(&mut entry, kind, declared, budget)? {
            continue;
        }
        budget.entry()?;
        let name_bytes = pending
            .long_name
            .take()
            .or(pending.pax_path.take())
            .unwrap_or_else(|| entry.path_bytes().into_owned());
        budget.name_length("name", name_bytes.len() as u64)?;
        let name = String::from_utf8_lossy(&name_bytes).into_owned();
        // Read raw, the entry's data is as long as its header says: a PAX size that differs
        // would make this reader and `tar` see different files.
        if let Some(size) = pending.pax_size.take()
            && std::str::from_utf8(&size).ok().and_then(|s| s.parse().ok()) != Some(declared)
        {
            bail!(
                "archive entry `{}` declares two different sizes",
                student_text::name(&name)
            );
        }
        let link = pending
            .long_link
            .take()
            .or(pending.pax_link.take())
            .or_else(|| entry.link_name_bytes().map(|b| b.into_owned()));
        let Some(rel) = entry_path(&name)? else {
            continue;
        };
        if let Some(link) = untar_entry(&mut entry, kind, declared, link, &rel, dest, budget)? {
            links.push(link);
        }
    }
    Ok(())
}

/// Unpacks one tar entry at `rel`: a folder, a file (`declared` bytes), or a link to `link`,
/// returned to be created last; any other kind is refused.
fn untar_entry(
    entry: &mut dyn Read,
    kind: tar::EntryType,
    declared: u64,
    link: Option<Vec<u8>>,
    rel: &Path,
    dest: &Path,
    budget: &mut Budget,
) -> Result<Option<(PathBuf, String)>> {
    match kind {
        tar::EntryType::Directory => budget.folder(dest, rel)?,
        tar::EntryType::Regular | tar::EntryType::Continuous => {
            if declared > budget.limits.max_bytes - budget.bytes {
                return Err(budget.too_big());
            }
            budget.copy(entry, dest, rel)?
        }
        tar::EntryType::Symlink => {
            let target = link.unwrap_or_default();
            budget.name_length("link target", target.len() as u64)?;
            let target = String::from_utf8_lossy(&target).into_owned();
            check_link(rel, &target)?;
            return Ok(Some((rel.to_path_buf(), target)));
        }
        other => {
            bail!(
                "archive entry `{}` is a {other:?} entry (only files, folders and links inside are accepted)",
                student_text::name(&rel.to_string_lossy())
            );
        }
    }
    Ok(None)
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
                        student_text::name(&rel.to_string_lossy()),
                        student_text::name(&target.to_string_lossy())
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

    use std::time::Instant;

    /// A tar header for `name` (written byte for byte, as `tar` writes it) of `kind` and `size`.
    fn header(name: &[u8], kind: tar::EntryType, size: u64) -> tar::Header {
        let mut h = tar::Header::new_gnu();
        h.as_old_mut().name[..name.len()].copy_from_slice(name);
        h.set_entry_type(kind);
        h.set_size(size);
        h.set_mode(if kind == tar::EntryType::Directory {
            0o755
        } else {
            0o644
        });
        h.set_cksum();
        h
    }

    /// A `.tar.gz` of `entries` (header and data), written to `dir`/`name`.
    fn tar_gz(dir: &Path, name: &str, entries: Vec<(tar::Header, Box<dyn Read>)>) -> PathBuf {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut b = tar::Builder::new(gz);
        for (h, data) in entries {
            b.append(&h, data).unwrap();
        }
        let bytes = b.into_inner().unwrap().finish().unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn file(name: &str, text: &'static str) -> (tar::Header, Box<dyn Read>) {
        (
            header(name.as_bytes(), tar::EntryType::Regular, text.len() as u64),
            Box::new(text.as_bytes()),
        )
    }

    fn folder(name: &str) -> (tar::Header, Box<dyn Read>) {
        (
            header(name.as_bytes(), tar::EntryType::Directory, 0),
            Box::new(std::io::empty()),
        )
    }

    /// A 64 MiB run of `a`, as an entry's data.
    fn huge() -> Box<dyn Read> {
        Box::new(std::io::repeat(b'a').take(64 << 20))
    }

    const HUGE: u64 = 64 << 20;

    fn scratch() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out");
        std::fs::create_dir(&dest).unwrap();
        (dir, dest)
    }

    #[test]
    fn extract_only_writes_what_it_keeps_and_checks_everything() {
        let keep = |p: &Path| p.ends_with("src/exercises.rs");
        let (dir, dest) = scratch();
        let ok = tar_gz(
            dir.path(),
            "ok.tar.gz",
            vec![
                folder("h/exercises/l1/src/"),
                file("h/exercises/l1/src/exercises.rs", "fn a() {}"),
                file("h/exercises/l1/src/lib.rs", "mod x;"),
                file("h/Cargo.toml", "[workspace]"),
            ],
        );
        extract_only(&ok, Kind::TarGz, &dest, Limits::default(), &keep).unwrap();
        let mut written: Vec<String> = walkdir::WalkDir::new(&dest)
            .into_iter()
            .map(|e| {
                e.unwrap()
                    .path()
                    .strip_prefix(&dest)
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        written.sort();
        assert_eq!(
            written,
            [
                "",
                "h",
                "h/exercises",
                "h/exercises/l1",
                "h/exercises/l1/src",
                "h/exercises/l1/src/exercises.rs"
            ]
        );
        let (dir, dest) = scratch();
        let bad = tar_gz(
            dir.path(),
            "bad.tar.gz",
            vec![
                file("h/exercises/l1/src/exercises.rs", "fn a() {}"),
                file("../escaped.txt", "x"),
            ],
        );
        assert!(extract_only(&bad, Kind::TarGz, &dest, Limits::default(), &keep).is_err());
    }

    #[test]
    fn a_64_mib_gnu_long_name_is_refused_without_reading_it() {
        let (dir, dest) = scratch();
        let archive = tar_gz(
            dir.path(),
            "long.tar.gz",
            vec![
                (
                    header(b"././@LongLink", tar::EntryType::GNULongName, HUGE),
                    huge(),
                ),
                file("exercises/x.rs", "x"),
            ],
        );
        assert!(std::fs::metadata(&archive).unwrap().len() < 1 << 20);
        let started = Instant::now();
        let (result, read) = unpack(&archive, Kind::TarGz, &dest, Limits::default(), &|_| true);
        let error = format!("{:#}", result.unwrap_err());
        assert!(
            error.contains("GNU long name of 67108863 bytes, over the 4096 bytes a name may have"),
            "{error}"
        );
        // Only the long name's header was read, not the name it declares.
        assert!(read < 64 * 1024, "{read} bytes read");
        assert!(started.elapsed().as_secs() < 5);
        // A long name within the limit, as GNU tar writes one, is the next entry's name.
        let name = format!("exercises/{}.rs", "n".repeat(150));
        let data = format!("{name}\0").into_bytes();
        let archive = tar_gz(
            dir.path(),
            "fine.tar.gz",
            vec![
                (
                    header(
                        b"././@LongLink",
                        tar::EntryType::GNULongName,
                        data.len() as u64,
                    ),
                    Box::new(std::io::Cursor::new(data)),
                ),
                file(&name[..99], "x"),
            ],
        );
        extract(&archive, Kind::TarGz, &dest, Limits::default()).unwrap();
        assert_eq!(std::fs::read_to_string(dest.join(&name)).unwrap(), "x");
    }

    #[test]
    fn a_pax_header_with_a_huge_path_is_refused_without_reading_it() {
        let (dir, dest) = scratch();
        let record = |key: &str, len: usize| {
            // A PAX record's length counts its own digits.
            let rest = key.len() + len + 3;
            let total = (rest..).find(|n| n.to_string().len() + rest == *n).unwrap();
            let mut r = format!("{total} {key}=").into_bytes();
            r.extend(std::iter::repeat_n(b'a', len));
            r.push(b'\n');
            r
        };
        let pax = |path_len: usize| {
            let data = record("path", path_len);
            (
                header(b"PaxHeaders/x", tar::EntryType::XHeader, data.len() as u64),
                Box::new(std::io::Cursor::new(data)) as Box<dyn Read>,
            )
        };
        let archive = tar_gz(
            dir.path(),
            "pax.tar.gz",
            vec![pax(1 << 20), file("exercises/x.rs", "x")],
        );
        let (result, read) = unpack(&archive, Kind::TarGz, &dest, Limits::default(), &|_| true);
        let error = format!("{:#}", result.unwrap_err());
        assert!(
            error.contains("PAX header of 1048590 bytes, over the 65536 bytes allowed"),
            "{error}"
        );
        assert!(read < 64 * 1024, "{read} bytes read");
        // Within the header's limit, the path it holds is still over a name's.
        let archive = tar_gz(
            dir.path(),
            "pax2.tar.gz",
            vec![pax(5000), file("x.rs", "x")],
        );
        let error = format!(
            "{:#}",
            extract(&archive, Kind::TarGz, &dest, Limits::default()).unwrap_err()
        );
        assert!(
            error.contains("name of 5000 bytes, over the 4096 bytes"),
            "{error}"
        );
        // A PAX path within the limits names the next entry.
        let archive = tar_gz(dir.path(), "pax3.tar.gz", vec![pax(200), file("x.rs", "x")]);
        extract(&archive, Kind::TarGz, &dest, Limits::default()).unwrap();
        assert!(dest.join("a".repeat(200)).is_file());
    }

    fn zip(dir: &Path, name: &str, entries: &[(&str, &[u8])]) -> PathBuf {
        let path = dir.join(name);
        let mut w = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        let opts = zip::write::SimpleFileOptions::default();
        for (name, data) in entries {
            if name.ends_with('/') {
                w.add_directory(*name, opts).unwrap();
            } else {
                w.start_file(*name, opts).unwrap();
                w.write_all(data).unwrap();
            }
        }
        w.finish().unwrap();
        path
    }

    #[test]
    fn too_many_entries_are_refused() {
        let (dir, dest) = scratch();
        let limits = Limits {
            max_entries: 10,
            ..Limits::default()
        };
        let names: Vec<String> = (0..11).map(|i| format!("f{i}.rs")).collect();
        let archive = tar_gz(
            dir.path(),
            "many.tar.gz",
            names.iter().map(|n| file(n, "x")).collect(),
        );
        let error = format!(
            "{:#}",
            extract(&archive, Kind::TarGz, &dest, limits).unwrap_err()
        );
        assert_eq!(error, "archive has more than 10 entries");
        let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
        let archive = zip(dir.path(), "many.zip", &entries);
        let error = format!(
            "{:#}",
            extract(&archive, Kind::Zip, &dest, limits).unwrap_err()
        );
        assert_eq!(error, "archive has more than 10 entries");
        // Ten are fine.
        let archive = zip(dir.path(), "ten.zip", &entries[..10]);
        extract(&archive, Kind::Zip, &dest, limits).unwrap();
        assert!(dest.join("f9.rs").is_file());
    }

    #[test]
    fn sizes_over_the_cap_are_refused_declared_or_read() {
        let (dir, dest) = scratch();
        // A file declaring 64 MiB is refused from its header, before its data is read.
        let archive = tar_gz(
            dir.path(),
            "big.tar.gz",
            vec![(header(b"big.rs", tar::EntryType::Regular, HUGE), huge())],
        );
        let limits = Limits {
            max_bytes: 1 << 20,
            ..Limits::default()
        };
        let (result, read) = unpack(&archive, Kind::TarGz, &dest, limits, &|_| true);
        assert_eq!(
            format!("{:#}", result.unwrap_err()),
            "archive unpacks to more than 1 MiB"
        );
        assert!(read < 64 * 1024, "{read} bytes read");
        assert!(!dest.join("big.rs").exists());
        // A zip's declared sizes are checked before anything is written.
        let big = vec![b'a'; 3 << 19];
        let archive = zip(
            dir.path(),
            "big.zip",
            &[("first.rs", b"x"), ("big.rs", &big)],
        );
        let error = format!(
            "{:#}",
            extract(&archive, Kind::Zip, &dest, limits).unwrap_err()
        );
        assert_eq!(error, "archive unpacks to more than 1 MiB");
        assert!(!dest.join("first.rs").exists());
        // The decompressed stream, headers included, is capped however small the files are: a
        // thousand empty files with long names and a long name past the end.
        let names: Vec<String> = (0..1000)
            .map(|i| format!("{i}-{}", "n".repeat(90)))
            .collect();
        let archive = tar_gz(
            dir.path(),
            "headers.tar.gz",
            names.iter().map(|n| file(n, "")).collect(),
        );
        let limits = Limits {
            max_read_bytes: 256 * 1024,
            ..Limits::default()
        };
        let (result, read) = unpack(&archive, Kind::TarGz, &dest, limits, &|_| true);
        assert_eq!(
            format!("{:#}", result.unwrap_err()),
            "archive decompresses to more than 0 MiB (headers included)"
        );
        assert!(read <= 256 * 1024 + 1, "{read}");
        // The written bytes are counted too (what a zip file's data holds, whatever it declared).
        let mut budget = Budget {
            limits: Limits {
                max_bytes: 10,
                ..Limits::default()
            },
            bytes: 0,
            entries: 0,
            keep: &|_| true,
        };
        budget
            .copy(&mut &b"12345"[..], &dest, Path::new("a"))
            .unwrap();
        let error = budget
            .copy(&mut &b"123456"[..], &dest, Path::new("b"))
            .unwrap_err();
        assert_eq!(format!("{error:#}"), "archive unpacks to more than 0 MiB");
    }

    #[test]
    fn what_tar_and_zip_add_is_accepted() {
        let (dir, dest) = scratch();
        // `tar czf x.tar.gz -C dir .`: the root itself, then everything under `./`.
        let archive = tar_gz(
            dir.path(),
            "dot.tar.gz",
            vec![
                folder("./"),
                folder("./exercises/"),
                folder("./exercises/lesson01/"),
                file("./exercises/lesson01/lib.rs", "fn main() {}"),
                folder("."),
            ],
        );
        extract(&archive, Kind::TarGz, &dest, Limits::default()).unwrap();
        assert_eq!(
            std::fs::read_to_string(dest.join("exercises/lesson01/lib.rs")).unwrap(),
            "fn main() {}"
        );
        // A zip of a top-level folder, with folder entries and macOS's resource forks.
        let (_dir2, dest) = scratch();
        let archive = zip(
            dir.path(),
            "mac.zip",
            &[
                ("alice/", b""),
                ("alice/exercises/", b""),
                ("alice/exercises/lib.rs", b"x"),
                ("__MACOSX/", b""),
                ("__MACOSX/alice/exercises/._lib.rs", b"\0\x05\x16\x07"),
            ],
        );
        extract(&archive, Kind::Zip, &dest, Limits::default()).unwrap();
        assert!(dest.join("alice/exercises/lib.rs").is_file());
        assert!(!dest.join("__MACOSX").exists());
    }

    #[test]
    fn an_archive_made_by_the_tar_command_of_dot_is_accepted() {
        if std::process::Command::new("tar")
            .arg("--version")
            .output()
            .is_err()
        {
            eprintln!("SKIPPED: no `tar` command to make the archive with");
            return;
        }
        let (dir, dest) = scratch();
        let src = dir.path().join("handout");
        let deep = src.join("exercises/lesson01").join("d".repeat(120));
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(src.join("exercises/lesson01/lib.rs"), "x").unwrap();
        // A path over 100 bytes, which GNU tar writes as a long name and bsdtar as PAX.
        std::fs::write(deep.join("e".repeat(100)), "deep").unwrap();
        let archive = dir.path().join("alice.tar.gz");
        let status = std::process::Command::new("tar")
            .arg("czf")
            .arg(&archive)
            .arg("-C")
            .arg(&src)
            .arg(".")
            .status()
            .unwrap();
        assert!(status.success());
        extract(&archive, Kind::TarGz, &dest, Limits::default()).unwrap();
        assert_eq!(
            std::fs::read_to_string(dest.join("exercises/lesson01/lib.rs")).unwrap(),
            "x"
        );
        let deep = dest.join("exercises/lesson01").join("d".repeat(120));
        assert_eq!(
            std::fs::read_to_string(deep.join("e".repeat(100))).unwrap(),
            "deep"
        );
    }

    #[test]
    fn names_in_errors_are_escaped_and_cut() {
        let forged = format!("../\x1b[2J\x1b[HTotal: 26/26{}", "x".repeat(4000));
        let error = entry_path(&forged).unwrap_err().to_string();
        assert!(!error.contains('\x1b'), "{error}");
        assert!(error.contains("\\u{1b}[2J"), "{error}");
        assert!(error.len() < 400, "{}", error.len());
    }

    #[test]
    fn entry_names_must_stay_inside() {
        let path = |name| entry_path(name).unwrap();
        assert_eq!(path("./a/b.rs"), Some(PathBuf::from("a/b.rs")));
        assert!(entry_path("../evil").is_err());
        assert!(entry_path("a/../../evil").is_err());
        assert!(entry_path("/etc/passwd").is_err());
        assert!(entry_path("\\windows\\evil").is_err());
        assert!(entry_path("").is_err());
        // What ordinary tools add is skipped: the root itself, macOS's resource forks.
        assert_eq!(path("./"), None);
        assert_eq!(path("."), None);
        assert_eq!(path("__MACOSX/exercises/._lib.rs"), None);
        assert_eq!(path("./__MACOSX/"), None);
        assert_eq!(
            path("alice/__MACOSX"),
            Some(PathBuf::from("alice/__MACOSX"))
        );
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
