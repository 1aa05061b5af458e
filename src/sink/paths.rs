//! The path cache both sinks share: every path of the database or
//! dataset interned to its `path_id`, so the two stores give a path the
//! same id. The SQLite loader fills it from a database appended to
//! (`PathCache::load`).

use std::hash::BuildHasher;

use foldhash::{HashMap, HashMapExt};

/// Interned paths: bytes → `path_id`, for every path in the database.
///
/// A path is known by two 64-bit hashes of its bytes under seeds drawn per
/// import, not by its bytes: 16 bytes a path however long, where the bytes
/// themselves made 2 M distinct paths cost 220 MB (issue #12). The first
/// hash is the key; the value packs the id with 24 bits of the second, so
/// a path whose first hash collides with another's is told apart and kept
/// in `collided` under both hashes in full. Two paths share an id only if
/// 88 bits collide: odds about n²/2⁸⁹ (10⁻¹⁴ at 2 M paths), and a trace
/// cannot aim at random seeds.
#[derive(Debug, Clone)]
pub struct PathCache {
    ids: HashMap<u64, u64>,
    collided: HashMap<[u64; 2], i64>,
    seeds: [foldhash::quality::RandomState; 2],
    /// The next id to give.
    pub(crate) next: i64,
    pub(crate) added: i64,
}

impl Default for PathCache {
    /// An empty cache for a fresh database: ids from 1.
    fn default() -> Self {
        PathCache {
            ids: HashMap::new(),
            collided: HashMap::new(),
            seeds: Default::default(),
            next: 1,
            added: 0,
        }
    }
}

impl PathCache {
    /// The id the next new path gets.
    pub fn next_id(&self) -> i64 {
        self.next
    }

    /// Paths added since this cache was made.
    pub fn added(&self) -> i64 {
        self.added
    }

    /// The id of `path`, and whether it is new: given the next id now.
    pub fn intern(&mut self, path: &[u8]) -> (i64, bool) {
        if let Some(id) = self.get(path) {
            return (id, false);
        }
        let id = self.next;
        self.next += 1;
        self.added += 1;
        self.insert(path, id);
        (id, true)
    }

    /// The id of `path`, if it has one.
    pub(crate) fn get(&self, path: &[u8]) -> Option<i64> {
        let [a, b] = self.hashes(path);
        match self.ids.get(&a) {
            Some(&v) if v & FP_MASK == b & FP_MASK => Some((v >> FP_BITS) as i64),
            _ => self.collided.get(&[a, b]).copied(),
        }
    }

    /// Give `path` the id `id`.
    pub(crate) fn insert(&mut self, path: &[u8], id: i64) {
        let [a, b] = self.hashes(path);
        let packs = (0..1 << (64 - FP_BITS)).contains(&id);
        if packs && !self.ids.contains_key(&a) {
            self.ids.insert(a, (id as u64) << FP_BITS | (b & FP_MASK));
        } else {
            self.collided.insert([a, b], id);
        }
    }

    fn hashes(&self, path: &[u8]) -> [u64; 2] {
        [self.seeds[0].hash_one(path), self.seeds[1].hash_one(path)]
    }
}

/// Bits of a path's second hash kept next to its id in [`PathCache`]; ids
/// below 2⁴⁰ pack, larger ones (never given, only read by `--append`) go
/// to `collided`.
const FP_BITS: u32 = 24;
const FP_MASK: u64 = (1 << FP_BITS) - 1;

#[cfg(test)]
mod tests {
    use super::PathCache;

    #[test]
    fn path_cache_gives_each_path_its_own_id() {
        let mut cache = PathCache::default();
        let paths: Vec<Vec<u8>> = (0..10_000)
            .map(|i| format!("/usr/src/f{i}.c").into_bytes())
            .collect();
        for (id, p) in (1..).zip(&paths) {
            assert_eq!(cache.get(p), None);
            cache.insert(p, id);
        }
        for (id, p) in (1..).zip(&paths) {
            assert_eq!(cache.get(p), Some(id));
        }
        assert_eq!(cache.get(b"/usr/src/f10000.c"), None);
    }

    #[test]
    fn path_cache_keeps_ids_too_large_to_pack() {
        // An --append database may hold any id; past 2^40 it cannot share
        // a word with the hash check and is kept in full.
        let mut cache = PathCache::default();
        let big = 1_i64 << 50;
        cache.insert(b"/etc/passwd", big);
        cache.insert(b"/etc/group", 7);
        assert_eq!(cache.get(b"/etc/passwd"), Some(big));
        assert_eq!(cache.get(b"/etc/group"), Some(7));
        assert_eq!(cache.collided.len(), 1);
    }
}
