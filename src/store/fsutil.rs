//! Small file-system helpers for private files: atomic writes with a fixed mode, private
//! directories, and permission checks. Unix only (the binary targets Linux and macOS).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// How `write_atomic_with` writes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// Permission bits of the new file, set explicitly (the umask does not apply).
    pub mode: u32,
    /// Refuse when `path` is a symbolic link. Without this, the rename replaces the link itself
    /// (its target is never written through); with it, a file the user named is not silently
    /// cut off from the file the link pointed at.
    pub refuse_symlink: bool,
}

impl WriteOptions {
    /// A private file (0600) that replaces whatever is at the path.
    pub const PRIVATE: WriteOptions = WriteOptions { mode: 0o600, refuse_symlink: false };
}

/// Writes `bytes` to `path` atomically with `mode`: see `write_atomic_with`.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    write_atomic_with(path, bytes, WriteOptions { mode, ..WriteOptions::PRIVATE })
}

/// Writes `bytes` to `path` atomically: a new temp file in the same directory (`create_new`, so
/// never an existing file or a link planted there), its mode set, fsync, rename over `path`,
/// fsync the directory. Readers see the old file or the new one; on failure the temp file is
/// removed and `path` is untouched.
pub fn write_atomic_with(path: &Path, bytes: &[u8], opts: WriteOptions) -> Result<()> {
    let mut staged = Staged::create(path, opts)?;
    staged.write_all(bytes).map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    staged.commit()
}

/// A file being written in the background of `path`: a temp file beside it (as in
/// `write_atomic_with`) that takes the content as it comes, then replaces `path` on `commit`.
/// Dropped without a commit (an error, a failed run), it removes its temp file and leaves `path`
/// as it was. This is how a file far larger than memory is replaced atomically.
pub struct Staged {
    path: PathBuf,
    tmp: PathBuf,
    file: io::BufWriter<File>,
    opts: WriteOptions,
    committed: bool,
}

impl Staged {
    /// Starts replacing `path`: refuses a symbolic link there when `opts` says so, and creates
    /// the temp file with `opts.mode`.
    pub fn create(path: &Path, opts: WriteOptions) -> Result<Staged> {
        refuse_link(path, opts)?;
        let ctx = || format!("writing {}", path.display());
        let (tmp, file) = create_temp(path, &parent(path), opts.mode).map_err(|e| Error::io(ctx(), e))?;
        // The mode passed to open is filtered by the umask; set it explicitly as well.
        if let Err(e) = file.set_permissions(fs::Permissions::from_mode(opts.mode)) {
            let _ = fs::remove_file(&tmp);
            return Err(Error::io(ctx(), e));
        }
        let file = io::BufWriter::with_capacity(64 * 1024, file);
        Ok(Staged { path: path.to_path_buf(), tmp, file, opts, committed: false })
    }

    /// The file this replaces.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temp file being written (read back by a second pass, e.g. CSV from JSON lines).
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// Flushes, fsyncs and renames the temp file over `path`, then fsyncs the directory. A link
    /// planted at `path` meanwhile is still refused when the options say so.
    pub fn commit(mut self) -> Result<()> {
        refuse_link(&self.path, self.opts)?;
        let done = (|| -> io::Result<()> {
            self.file.flush()?;
            self.file.get_ref().sync_all()?;
            fs::rename(&self.tmp, &self.path)
        })();
        done.map_err(|e| Error::io(format!("writing {}", self.path.display()), e))?;
        self.committed = true;
        // Persist the rename itself; a failure here is not worth failing the write for on file
        // systems that refuse to fsync a directory.
        if let Ok(d) = File::open(parent(&self.path)) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Write for Staged {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

fn refuse_link(path: &Path, opts: WriteOptions) -> Result<()> {
    match opts.refuse_symlink && fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        true => Err(Error::boxed(Error::Config(format!(
            "{} is a symbolic link; refusing to replace it (write to its target's path instead)",
            path.display()
        )))),
        false => Ok(()),
    }
}

/// A new temp file next to `path`. A name already taken (a leftover of a crashed process that
/// had the same pid) moves on to the next one.
fn create_temp(path: &Path, dir: &Path, mode: u32) -> io::Result<(PathBuf, File)> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut tries = 0;
    loop {
        let tmp = dir.join(format!("{}{}-{}", temp_prefix(&name), std::process::id(), unique_suffix()));
        match OpenOptions::new().write(true).create_new(true).mode(mode).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 100 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

/// How the temp files of `name` begin (`.name.tmp-`), so that the ones a killed process left
/// behind can be found and removed.
pub fn temp_prefix(name: &str) -> String {
    format!(".{name}.tmp-")
}

/// Creates `dir` (and parents) with mode 0700 when it does not exist. An existing directory's
/// mode is left alone: it may be shared (e.g. a custom token path under /tmp); `doctor` reports it.
pub fn ensure_private_dir(dir: &Path) -> Result<()> {
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(Error::boxed(Error::Config(format!("{} exists and is not a directory", dir.display())))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), e)),
        Err(e) => Err(Error::io(dir.display().to_string(), e)),
    }
}

/// The permission bits of `path`, or `None` when it does not exist.
pub fn mode_of(path: &Path) -> Result<Option<u32>> {
    match fs::metadata(path) {
        Ok(m) => Ok(Some(m.permissions().mode() & 0o7777)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path.display().to_string(), e)),
    }
}

/// True when no group or other permission bit is set.
pub fn is_private(mode: u32) -> bool {
    mode & 0o077 == 0
}

/// Fails with advice when `path` exists and group or others may read or write it.
pub fn check_private(path: &Path, what: &str) -> Result<()> {
    match mode_of(path)? {
        Some(mode) if !is_private(mode) => Err(Error::boxed(Error::Config(format!(
            "{what} {} is accessible by other users (mode {mode:04o}); run `chmod 600 {}` and try again",
            path.display(),
            path.display()
        )))),
        _ => Ok(()),
    }
}

/// Removes a file; `Ok(false)` when it did not exist.
pub fn remove_if_exists(path: &Path) -> Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io(format!("removing {}", path.display()), e)),
    }
}

/// A per-call suffix so two writers in one process never share a temp file.
fn unique_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// The directory holding `path` (`.` for a bare file name).
pub fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// For unit tests: a path under the system temp directory, unique to this process and call,
/// that does not exist yet (a leftover from an earlier run is removed).
#[cfg(test)]
pub fn test_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wmcp-{tag}-{}-{}", std::process::id(), unique_suffix()));
    let _ = fs::remove_dir_all(&d);
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_sets_the_mode_and_replaces_content() {
        let d = test_dir("atomic");
        ensure_private_dir(&d.join("a/b")).unwrap();
        assert_eq!(mode_of(&d.join("a/b")).unwrap(), Some(0o700));
        let f = d.join("a/b/x.json");
        write_atomic(&f, b"one", 0o600).unwrap();
        write_atomic(&f, b"two", 0o600).unwrap();
        assert_eq!(fs::read_to_string(&f).unwrap(), "two");
        assert_eq!(mode_of(&f).unwrap(), Some(0o600));
        // No temp file is left behind.
        assert_eq!(fs::read_dir(d.join("a/b")).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn atomic_write_keeps_a_given_mode_and_refuses_a_symlink_when_asked() {
        let d = test_dir("opts");
        fs::create_dir_all(&d).unwrap();
        let f = d.join("cfg.json");
        write_atomic_with(&f, b"x", WriteOptions { mode: 0o644, refuse_symlink: true }).unwrap();
        assert_eq!(mode_of(&f).unwrap(), Some(0o644));
        // A link at the destination: refused when asked (the target is untouched either way),
        // replaced by a regular file otherwise.
        let target = d.join("target");
        fs::write(&target, "keep").unwrap();
        let link = d.join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let err = write_atomic_with(&link, b"new", WriteOptions { mode: 0o600, refuse_symlink: true });
        assert!(err.unwrap_err().to_string().contains("symbolic link"));
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        write_atomic(&link, b"new", 0o600).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_file());
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn failed_replace_leaves_no_temp_file() {
        // Renaming a file over a non-empty directory fails even for root, after the temp file
        // exists: the temp file must go.
        let d = test_dir("rename");
        fs::create_dir_all(d.join("cfg.json/inside")).unwrap();
        let err = write_atomic(&d.join("cfg.json"), b"{}", 0o600).unwrap_err().to_string();
        assert!(err.contains("cfg.json"), "{err}");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn permission_checks() {
        let cases =
            [(0o600, true), (0o400, true), (0o700, true), (0o640, false), (0o604, false), (0o666, false)];
        for (mode, want) in cases {
            assert_eq!(is_private(mode), want, "{mode:o}");
        }
        let d = test_dir("perm");
        fs::create_dir_all(&d).unwrap();
        let f = d.join("t");
        fs::write(&f, "x").unwrap();
        fs::set_permissions(&f, fs::Permissions::from_mode(0o644)).unwrap();
        let msg = check_private(&f, "token file").unwrap_err().to_string();
        assert!(msg.contains("chmod 600") && msg.contains("0644"), "{msg}");
        assert!(check_private(&d.join("missing"), "token file").is_ok());
        assert!(remove_if_exists(&f).unwrap());
        assert!(!remove_if_exists(&f).unwrap());
        fs::remove_dir_all(&d).unwrap();
    }
}
