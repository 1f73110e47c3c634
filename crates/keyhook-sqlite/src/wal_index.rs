//! The change signal SQLite reads first itself: the header of the WAL index, in the shared
//! memory (the `-shm` file) that every connection to a WAL database maps, in any process.
//! Every commit rewrites it (its change counter, the log's last frame, or, after the log
//! restarts, its salts); a connection beginning a read transaction compares it with the
//! header it last saw, and only when it differs does it take the snapshot anew. The key
//! cache does the same before each lookup: while the header is the one it saw when it last
//! read `PRAGMA data_version`, nobody has committed since, and the cache stands without a
//! read transaction (whose lock round, two `fcntl` calls and a statement, was the largest
//! single cost of serve's authenticated request). When the header differs, the cache reads
//! `data_version` as before.
//!
//! The layout is SQLite's file format (<https://www.sqlite.org/walformat.html>, "the WAL-index
//! header"), which processes running different SQLite versions share, so it cannot change:
//! two copies of 48 bytes at the start of the index, written second copy first, read first
//! copy first with a barrier between, and valid only when both agree, `isInit` is set and
//! their checksum holds. A read that finds anything else (a commit under way, a version this
//! code does not know) is no signal: the caller reads `data_version` instead.
//!
//! The region is SQLite's own mapping, asked of the connection's file through the VFS's
//! public `xShmMap` method, so no descriptor of the `-shm` file is opened here (closing one
//! would drop the process's POSIX locks on the file, SQLite's included).

use std::ffi::{c_int, c_void};
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicU32, Ordering};

use rusqlite::{ffi, Connection, DatabaseName};

/// The header's 48 bytes as 12 words in the machine's byte order.
pub(crate) type Header = [u32; WORDS];

const WORDS: usize = 12;

/// `iVersion`, the header's first word, in every WAL index since SQLite 3.7.0.
const VERSION: u32 = 3_007_000;

/// The size SQLite maps the index in (`WALINDEX_PGSZ`); region 0 holds the header.
const REGION: c_int = 32 * 1024;

/// Region 0 of a connection's WAL index, as SQLite mapped it.
pub(crate) struct WalIndex(NonNull<AtomicU32>);

// SAFETY: the region is shared memory that any thread may read; `WalIndex` only reads it,
// with atomic loads, and lives inside the store that owns the connection which keeps the
// mapping (see `WalIndex::of`).
unsafe impl Send for WalIndex {}

impl WalIndex {
    /// The mapped region 0 of `conn`'s WAL index, if `conn` has its database open read-write
    /// in WAL mode with the index in shared memory and a read transaction has mapped it.
    /// `None` otherwise (an immutable or read-only file, another journal mode, a VFS without
    /// shared memory): the caller then relies on `PRAGMA data_version` alone.
    ///
    /// # Safety
    /// The value must not be used after `conn` closes or leaves WAL mode (SQLite unmaps the
    /// region then): keep it beside the connection, in the same owner, and never change the
    /// connection's journal mode while it is held.
    pub(crate) unsafe fn of(conn: &Connection) -> Option<WalIndex> {
        if conn.is_readonly(DatabaseName::Main).unwrap_or(true) {
            return None;
        }
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .ok()?;
        if !mode.eq_ignore_ascii_case("wal") {
            return None;
        }
        let mut file: *mut ffi::sqlite3_file = std::ptr::null_mut();
        // SAFETY: the handle is the open connection's; FILE_POINTER writes one pointer.
        let rc = unsafe {
            ffi::sqlite3_file_control(
                conn.handle(),
                c"main".as_ptr(),
                ffi::SQLITE_FCNTL_FILE_POINTER,
                (&raw mut file).cast::<c_void>(),
            )
        };
        if rc != ffi::SQLITE_OK || file.is_null() {
            return None;
        }
        // SAFETY: `file` is the main database's open file; version 2 of the methods has
        // the shared-memory ones. `bExtend` 0 maps nothing new: it returns the region SQLite
        // mapped for the connection's WAL (the same file handle's), or null.
        let region = unsafe {
            let methods = (*file).pMethods;
            if methods.is_null() || (*methods).iVersion < 2 {
                return None;
            }
            let map = (*methods).xShmMap?;
            let mut region: *mut c_void = std::ptr::null_mut();
            if map(file, 0, REGION, 0, &mut region) != ffi::SQLITE_OK {
                return None;
            }
            region
        };
        // The header itself is checked at each read ([`WalIndex::header`]): one being
        // written at this instant must not leave the connection without the index for good.
        Some(WalIndex(NonNull::new(region.cast::<AtomicU32>())?))
    }

    /// The header, if both copies agree and it is valid; `None` while a commit is writing it.
    pub(crate) fn header(&self) -> Option<Header> {
        // SAFETY: region 0 is 32 KiB, page-aligned; the header's two copies are its first 24
        // words. Atomic loads read what another process's plain stores wrote, as SQLite's
        // own reader does.
        let word = |i: usize| unsafe { (*self.0.as_ptr().add(i)).load(Ordering::Relaxed) };
        let mut first = [0u32; WORDS];
        for (i, w) in first.iter_mut().enumerate() {
            *w = word(i);
        }
        // The first copy before the second: a writer writes them in the other order.
        fence(Ordering::SeqCst);
        if (0..WORDS).any(|i| word(WORDS + i) != first[i]) {
            return None;
        }
        valid(&first).then_some(first)
    }
}

/// Whether `h` is a header SQLite would accept: this version, `isInit` set, checksum right.
fn valid(h: &Header) -> bool {
    let is_init = h[3].to_ne_bytes()[0] == 1;
    h[0] == VERSION && is_init && checksum(&h[..10]) == [h[10], h[11]]
}

/// SQLite's WAL checksum over `words` (an even number), in native byte order, as the header
/// carries it over its first 40 bytes.
fn checksum(words: &[u32]) -> [u32; 2] {
    let (mut s1, mut s2) = (0u32, 0u32);
    for pair in words.chunks_exact(2) {
        s1 = s1.wrapping_add(pair[0]).wrapping_add(s2);
        s2 = s2.wrapping_add(pair[1]).wrapping_add(s1);
    }
    [s1, s2]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wal_db(dir: &std::path::Path) -> Connection {
        let c = Connection::open(dir.join("w.db")).unwrap();
        c.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))
            .unwrap();
        c.execute_batch("CREATE TABLE t (x)").unwrap();
        c
    }

    /// The header read through the mapping is the one SQLite wrote to the `-shm` file: the
    /// same bytes, with a checksum this code computes as SQLite does.
    #[test]
    fn the_header_is_the_one_in_the_shm_file() {
        let dir = tempfile::tempdir().unwrap();
        let c = wal_db(dir.path());
        let index = unsafe { WalIndex::of(&c) }.expect("a WAL database has an index");
        let header = index.header().unwrap();
        let bytes = std::fs::read(dir.path().join("w.db-shm")).unwrap();
        let on_disk: Vec<u32> = bytes[..48]
            .chunks_exact(4)
            .map(|b| u32::from_ne_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(header.as_slice(), on_disk.as_slice());
        assert!(valid(&header));
    }

    #[test]
    fn every_commit_anywhere_changes_the_header_and_reads_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let c = wal_db(dir.path());
        let index = unsafe { WalIndex::of(&c) }.unwrap();
        let before = index.header().unwrap();
        let other = Connection::open(dir.path().join("w.db")).unwrap();
        let _: i64 = other
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(index.header().unwrap(), before, "a read is not a change");
        other.execute("INSERT INTO t VALUES (1)", []).unwrap();
        let after = index.header().unwrap();
        assert_ne!(after, before);
        // After a checkpoint that empties the log, the next commit restarts it (new salts,
        // frame count back to its start): still a different header.
        other
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        other.execute("INSERT INTO t VALUES (2)", []).unwrap();
        let restarted = index.header().unwrap();
        assert_ne!(restarted, after);
        assert_ne!(restarted, before);
    }

    #[test]
    fn a_torn_or_foreign_header_is_no_signal() {
        let dir = tempfile::tempdir().unwrap();
        let c = wal_db(dir.path());
        let index = unsafe { WalIndex::of(&c) }.unwrap();
        let good = index.header().unwrap();
        let mut bad = good;
        bad[6] ^= 1; // mxFrame changed without its checksum
        assert!(!valid(&bad));
        let mut old = good;
        old[0] = 3_006_999;
        assert!(!valid(&old));
        let mut uninit = good;
        uninit[3] &= !u32::from_ne_bytes([0xff, 0, 0, 0]);
        assert!(!valid(&uninit));
    }

    #[test]
    fn no_index_outside_wal_mode_or_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let c = Connection::open(dir.path().join("d.db")).unwrap();
        c.execute_batch("CREATE TABLE t (x)").unwrap();
        assert!(unsafe { WalIndex::of(&c) }.is_none(), "rollback journal");
        drop(wal_db(dir.path()));
        let ro = Connection::open_with_flags(
            dir.path().join("w.db"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        assert!(unsafe { WalIndex::of(&ro) }.is_none(), "read-only");
        assert!(
            !dir.path().join("d.db-shm").exists(),
            "no shared memory made"
        );
    }
}
