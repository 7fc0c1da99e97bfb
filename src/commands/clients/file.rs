//! Reading and replacing a client's config file: what must not be replaced (a symlink, a
//! read-only file or directory, text that is not UTF-8) is refused before anything is written;
//! the old file is copied to a timestamped backup, then replaced with the store's atomic writer.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::commands::clients::unchanged;
use crate::store::fsutil::{self, WriteOptions};
use crate::{Error, Result};

/// The existing config file: its text and metadata (for the backup's and the new file's mode).
pub struct Existing {
    pub text: String,
    pub meta: fs::Metadata,
}

/// Reads the current config, refusing what must not be replaced.
pub fn read_existing(path: &Path) -> Result<Option<Existing>> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        // A parent that is a file (NotADirectory) also means "no config yet"; creating the
        // directory then fails with a message that names it.
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
            return Ok(None);
        }
        Err(e) => return Err(Error::io(path.display().to_string(), e)),
    };
    // A symlinked config (dotfiles repositories do this) is refused rather than followed: the
    // atomic rename would replace the link itself with a regular file, silently cutting the
    // client's config off from the file the user actually manages.
    if meta.file_type().is_symlink() {
        return Err(Box::new(unchanged(
            path,
            "is a symbolic link, which setup does not replace; add the entry to its target by hand",
        )));
    }
    if !meta.is_file() {
        return Err(Box::new(unchanged(path, "is not a regular file")));
    }
    let bytes = fs::read(path).map_err(|e| Error::io(path.display().to_string(), e))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some(Existing { text, meta })),
        Err(_) => Err(Box::new(unchanged(path, "is not valid UTF-8"))),
    }
}

/// Backs up the old file (if any) and atomically replaces it. Returns the backup path.
pub fn write_config(
    path: &Path,
    old: Option<&Existing>,
    bytes: &[u8],
    stamp: &str,
) -> Result<Option<PathBuf>> {
    let ctx = |p: &Path| p.display().to_string();
    // Permission bits are checked explicitly: root (and some file systems) would happily write a
    // file or directory the user made read-only, and that choice deserves respect.
    if old.is_some_and(|o| o.meta.permissions().readonly()) {
        return Err(Box::new(unchanged(
            path,
            "is read-only; make it writable (chmod u+w) or add the entry by hand",
        )));
    }
    let Some(dir) = path.parent() else {
        return Err(Box::new(unchanged(path, "has no parent directory")));
    };
    // The same respect for a read-only HOME (or any read-only ancestor) that the directories
    // below it would be created in: root would otherwise create them regardless.
    if let Some(ro) = read_only_ancestor(dir) {
        return Err(Error::io(
            format!("creating {}", ctx(dir)),
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} is read-only; nothing was written", ro.display()),
            ),
        ));
    }
    fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", ctx(dir)), e))?;
    let dir_meta = fs::metadata(dir).map_err(|e| Error::io(ctx(dir), e))?;
    if dir_meta.permissions().readonly() {
        return Err(Error::io(
            ctx(dir),
            io::Error::new(io::ErrorKind::PermissionDenied, "directory is read-only; nothing was written"),
        ));
    }
    let backup = match old {
        Some(o) => Some(write_backup(path, o, stamp)?),
        None => None,
    };
    // The client's file keeps its mode (it may hold other servers' settings and the user chose
    // who reads it); a new one is private.
    let mode = old.map(|o| o.meta.permissions().mode() & 0o7777).unwrap_or(0o600);
    if let Err(e) = fsutil::write_atomic_with(path, bytes, WriteOptions { mode, refuse_symlink: true }) {
        // The backup is a copy of a file that did not change; leave no clutter behind.
        if let Some(b) = &backup {
            let _ = fs::remove_file(b);
        }
        return Err(e);
    }
    Ok(backup)
}

/// The nearest existing ancestor of a missing `dir` when it is read-only (`None` when `dir`
/// exists or the ancestor is writable).
fn read_only_ancestor(dir: &Path) -> Option<PathBuf> {
    if fs::symlink_metadata(dir).is_ok() {
        return None;
    }
    let existing = dir.ancestors().skip(1).find(|a| fs::symlink_metadata(a).is_ok())?;
    let meta = fs::metadata(existing).ok()?;
    (meta.is_dir() && meta.permissions().readonly()).then(|| existing.to_path_buf())
}

/// Copies the old bytes to `<file>.bak.<stamp>` (or `.bak.<stamp>.N` when taken) with the old
/// file's permissions: it may hold other servers' settings, so it is no more readable than they were.
fn write_backup(path: &Path, old: &Existing, stamp: &str) -> Result<PathBuf> {
    let base = format!("{}.bak.{stamp}", path.display());
    for n in 0..100 {
        let candidate = PathBuf::from(match n {
            0 => base.clone(),
            n => format!("{base}.{n}"),
        });
        let mut file = match create_private(&candidate) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(format!("writing backup {}", candidate.display()), e)),
        };
        let written = file
            .write_all(old.text.as_bytes())
            .and_then(|()| file.sync_all())
            .and_then(|()| fs::set_permissions(&candidate, old.meta.permissions()));
        return match written {
            Ok(()) => Ok(candidate),
            Err(e) => {
                let _ = fs::remove_file(&candidate);
                Err(Error::io(format!("writing backup {}", candidate.display()), e))
            }
        };
    }
    Err(Box::new(unchanged(path, "too many backups with the same timestamp")))
}

/// Creates a new file (never an existing one) readable by the owner only.
fn create_private(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)
}
