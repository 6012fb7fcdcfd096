//! An ordered map and set for the large collections (the journals' records and their orders, the calls in flight,
//! the runs, the storage log), all indexed through one sorted vector type.
//!
//! Every `BTreeMap<K, V>` brings its own copy of the B-tree's node code for its `K` and `V`: with fourteen key and
//! value pairs that came to 138 KB of the bridge's wasm (twiggy, 2026-12-03). Here each key is written as text
//! that sorts as the key does ([`IndexKey`]), a sorted `Vec<(Box<str>, u32)>` — the same type for every map, so
//! its code is in the download once — maps that text to a slot, and the entries live in a [`Slab`]. A lookup is a
//! binary search; an insert or a removal moves the index's tail, 12 bytes per entry in the wasm whatever the
//! entry's size (a map of 2,000 entries moves 12 KB at worst, one `memory.copy`). That index replaced a
//! `BTreeMap<Box<str>, u32>`, whose node code was 22 KB of the wasm (issue 24), at no measured cost (criterion
//! bench `journal`, whose provider keeps 2,000 records).
//!
//! The small collections keep [`crate::sorted_map`]: for a few entries, or keys that only grow, a plain sorted vector
//! needs no key text, no allocation per key and no slab, and takes any `Ord` key.
//!
//! They iterate in key order, like `BTreeMap` and `BTreeSet`, so the same inputs give the same effects in the same
//! order.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::slice;

use slab::Slab;

use crate::ids::RequestId;
use crate::origin::WindowOrigin;

/// A key written as text that sorts as the key does: `a < b` exactly when `a`'s text sorts before `b`'s (byte
/// order). Numbers are written as 16 hexadecimal digits; the parts of a pair are joined by `\0`, which no part
/// holds (ids, origins and storage keys are printable text).
pub trait KeyText {
    /// Appends the key's text to `out`.
    fn write_key(&self, out: &mut String);

    /// Calls `with` with the key's text (borrowed when the key is text already).
    fn with_key<R>(&self, with: impl FnOnce(&str) -> R) -> R {
        let mut text = String::new();
        self.write_key(&mut text);
        with(&text)
    }
}

/// A key of an [`IndexMap`] or [`IndexSet`]: ordered as its [`KeyText`].
pub trait IndexKey: KeyText + Ord + Clone {}

impl<T: KeyText + Ord + Clone> IndexKey for T {}

impl KeyText for str {
    fn write_key(&self, out: &mut String) {
        out.push_str(self);
    }

    fn with_key<R>(&self, with: impl FnOnce(&str) -> R) -> R {
        with(self)
    }
}

impl KeyText for String {
    fn write_key(&self, out: &mut String) {
        out.push_str(self);
    }

    fn with_key<R>(&self, with: impl FnOnce(&str) -> R) -> R {
        with(self)
    }
}

impl KeyText for RequestId {
    fn write_key(&self, out: &mut String) {
        out.push_str(self.as_str());
    }

    fn with_key<R>(&self, with: impl FnOnce(&str) -> R) -> R {
        with(self.as_str())
    }
}

impl KeyText for WindowOrigin {
    fn write_key(&self, out: &mut String) {
        // The opaque origin ("null") sorts before every tuple origin ("http…"): `\u{1}` before any letter.
        match self {
            WindowOrigin::Opaque => out.push('\u{1}'),
            WindowOrigin::Tuple(origin) => out.push_str(origin.as_str()),
        }
    }
}

impl KeyText for u64 {
    fn write_key(&self, out: &mut String) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for shift in (0..16).rev() {
            out.push(char::from(HEX[((self >> (shift * 4)) & 0xf) as usize]));
        }
    }
}

impl<A: KeyText, B: KeyText> KeyText for (A, B) {
    fn write_key(&self, out: &mut String) {
        self.0.write_key(out);
        out.push('\0');
        self.1.write_key(out);
    }
}

/// A map ordered by key (see the module docs).
#[derive(Clone)]
pub struct IndexMap<K, V> {
    /// Each key's text and the slot of its entry, in the order of the texts.
    index: Vec<(Box<str>, u32)>,
    entries: Slab<(K, V)>,
}

impl<K, V> Default for IndexMap<K, V> {
    fn default() -> Self {
        Self { index: Vec::new(), entries: Slab::new() }
    }
}

/// Where `text` is in `index`, or where it would go (one function for every map's key and value types).
///
/// A binary search that does not compare again what it already knows. The keys share long prefixes (a journal's
/// `webmcp:p:http://127.0.0.1:8080\0c_…`), and wasm's `memcmp` goes a byte at a time: a plain binary search spent
/// most of its time walking the same 40 bytes at every step (`index_map::search` was the wasm's first function in
/// a profile of small calls, about 12 µs a call on each side). Every key between the two bounds shares with `text`
/// at least the shorter of the prefixes the bounds share with it (keys sorted between two texts that share a prefix
/// have it too), so each comparison starts there, and goes 8 bytes at a time. Never inlined: one copy serves every
/// map's key and value types.
#[inline(never)]
fn search(index: &[(Box<str>, u32)], text: &str) -> Result<usize, usize> {
    let text = text.as_bytes();
    // Keys before `low` sort before `text`, keys from `high` on after it; `text` shares `low_shared` bytes with the
    // key just before `low` and `high_shared` with the key at `high` (0 where there is no such key).
    let (mut low, mut high) = (0, index.len());
    let (mut low_shared, mut high_shared) = (0, 0);
    while low < high {
        let middle = low + (high - low) / 2;
        let (order, shared) = compare_from(index[middle].0.as_bytes(), text, low_shared.min(high_shared));
        match order {
            Ordering::Less => (low, low_shared) = (middle + 1, shared),
            Ordering::Greater => (high, high_shared) = (middle, shared),
            Ordering::Equal => return Ok(middle),
        }
    }
    Err(low)
}

/// Compares `key` with `text` in byte order, given that their first `known` bytes are equal; the order and how many
/// leading bytes they share.
fn compare_from(key: &[u8], text: &[u8], known: usize) -> (Ordering, usize) {
    let end = key.len().min(text.len());
    let mut at = known.min(end);
    while let (Some(a), Some(b)) = (key[at..end].first_chunk::<8>(), text[at..end].first_chunk::<8>()) {
        let difference = u64::from_le_bytes(*a) ^ u64::from_le_bytes(*b);
        if difference != 0 {
            // The lowest differing byte of a little-endian load is the first one in the text.
            at += (difference.trailing_zeros() / 8) as usize;
            return (key[at].cmp(&text[at]), at);
        }
        at += 8;
    }
    while at < end {
        if key[at] != text[at] {
            return (key[at].cmp(&text[at]), at);
        }
        at += 1;
    }
    (key.len().cmp(&text.len()), end)
}

impl<K: IndexKey, V> IndexMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many entries the map holds.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    fn slot<Q: KeyText + ?Sized>(&self, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
    {
        self.locate(key).ok().map(|at| self.index[at].1 as usize)
    }

    /// Where `key`'s text is in the index, or where it would go (borrowed when the key is text already).
    fn locate<Q: KeyText + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        key.with_key(|text| search(&self.index, text))
    }

    /// The value of `key`.
    pub fn get<Q: KeyText + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.slot(key).map(|slot| &self.entries[slot].1)
    }

    /// The value of `key`, to change.
    pub fn get_mut<Q: KeyText + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.slot(key).map(|slot| &mut self.entries[slot].1)
    }

    /// Whether the map holds `key`.
    pub fn contains_key<Q: KeyText + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.slot(key).is_some()
    }

    /// Puts `value` under `key`; the value it replaces, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let (text, place) = self.text_and_place(&key);
        match place {
            Ok(at) => Some(std::mem::replace(&mut self.entries[self.index[at].1 as usize].1, value)),
            Err(at) => {
                self.insert_at(at, text, key, value);
                None
            }
        }
    }

    /// `key`'s text, written once for both the search and a new entry (a key that is not text would be written
    /// twice through [`Self::locate`]), and where it is in the index or would go.
    fn text_and_place(&self, key: &K) -> (String, Result<usize, usize>) {
        let mut text = String::new();
        key.write_key(&mut text);
        let place = search(&self.index, &text);
        (text, place)
    }

    /// Puts an entry whose key the map does not hold, of text `text`, at `at` in the index; its slot. (Inlined: as
    /// a function of its own per key and value type it made the wasm larger.)
    #[inline(always)]
    fn insert_at(&mut self, at: usize, text: String, key: K, value: V) -> usize {
        let slot = self.entries.insert((key, value));
        // A map never holds 2^32 entries: the journals and the calls in flight are bounded far below.
        self.index.insert(at, (text.into_boxed_str(), slot as u32));
        slot
    }

    /// Removes `key`; its value, if it was there.
    pub fn remove<Q: KeyText + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let at = self.locate(key).ok()?;
        let (_, slot) = self.index.remove(at);
        Some(self.entries.remove(slot as usize).1)
    }

    /// The entries in key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter { slots: self.index.iter(), entries: &self.entries }
    }

    /// The entries from `start` (included) on, in key order.
    pub fn range_from<Q: KeyText + ?Sized>(&self, start: &Q) -> impl Iterator<Item = (&K, &V)>
    where
        K: Borrow<Q>,
    {
        let from = self.locate(start).unwrap_or_else(|at| at);
        Iter { slots: self.index[from..].iter(), entries: &self.entries }
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> {
        self.iter().map(|(key, _)| key)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> {
        self.iter().map(|(_, value)| value)
    }

    /// The entry of the smallest key.
    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.iter().next()
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.index.clear();
        self.entries.clear();
    }

    /// The value of `key`, put there by `make` when missing.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let (text, place) = self.text_and_place(&key);
        let slot = match place {
            Ok(at) => self.index[at].1 as usize,
            Err(at) => self.insert_at(at, text, key, make()),
        };
        &mut self.entries[slot].1
    }

    /// Removes every entry and gives them in key order.
    pub fn drain(&mut self) -> Vec<(K, V)> {
        let index = std::mem::take(&mut self.index);
        let mut entries = std::mem::take(&mut self.entries);
        index.into_iter().map(|(_, slot)| entries.remove(slot as usize)).collect()
    }
}

/// The entries of an [`IndexMap`] whose slots `slots` gives, in its order.
pub struct Iter<'a, K, V> {
    slots: slice::Iter<'a, (Box<str>, u32)>,
    entries: &'a Slab<(K, V)>,
}

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        let (key, value) = &self.entries[self.slots.next()?.1 as usize];
        Some((key, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.slots.size_hint()
    }
}

impl<K, V> DoubleEndedIterator for Iter<'_, K, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let (key, value) = &self.entries[self.slots.next_back()?.1 as usize];
        Some((key, value))
    }
}

impl<'a, K: IndexKey, V> IntoIterator for &'a IndexMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<K: IndexKey + fmt::Debug, V: fmt::Debug> fmt::Debug for IndexMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: IndexKey + PartialEq, V: PartialEq> PartialEq for IndexMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<K: IndexKey + Eq, V: Eq> Eq for IndexMap<K, V> {}

impl<K: IndexKey, V> FromIterator<(K, V)> for IndexMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(items: I) -> Self {
        let mut map = Self::new();
        for (key, value) in items {
            map.insert(key, value);
        }
        map
    }
}

/// A set ordered by key (see the module docs).
#[derive(Clone)]
pub struct IndexSet<K> {
    map: IndexMap<K, ()>,
}

impl<K> Default for IndexSet<K> {
    fn default() -> Self {
        Self { map: IndexMap::default() }
    }
}

impl<K: IndexKey> PartialEq for IndexSet<K> {
    fn eq(&self, other: &Self) -> bool {
        self.map == other.map
    }
}

impl<K: IndexKey> Eq for IndexSet<K> {}

impl<K: IndexKey> IndexSet<K> {
    /// An empty set.
    pub fn new() -> Self {
        Self { map: IndexMap::new() }
    }

    /// How many items the set holds.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Adds `item`; whether it was new.
    pub fn insert(&mut self, item: K) -> bool {
        self.map.insert(item, ()).is_none()
    }

    /// Removes `item`; whether it was there.
    pub fn remove<Q: KeyText + ?Sized>(&mut self, item: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.map.remove(item).is_some()
    }

    /// Whether the set holds `item`.
    pub fn contains<Q: KeyText + ?Sized>(&self, item: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.map.contains_key(item)
    }

    /// The smallest item.
    pub fn first(&self) -> Option<&K> {
        self.map.keys().next()
    }

    /// The items in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &K> {
        self.map.keys()
    }

    /// Removes every item.
    pub fn clear(&mut self) {
        self.map.clear();
    }
}

impl<K: IndexKey + fmt::Debug> fmt::Debug for IndexSet<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::collections::{BTreeMap, BTreeSet};

    use super::*;
    use crate::test_rng::next;

    fn rid(text: &str) -> RequestId {
        RequestId::new(text).unwrap_or_else(|_| unreachable!("a valid id"))
    }

    /// The same random operations on a `BTreeMap` and an `IndexMap` with pair keys of a number and an id leave the
    /// same entries in the same order, and answer every lookup the same.
    #[test]
    fn it_is_a_btree_map_with_other_code() {
        let mut state = 7u64;
        let mut below = |n: u64| next(&mut state) % n;
        let ids = ["a", "b", "aa", "a-b", "Z", "0", "a_1", "a:b"];
        let mut theirs: BTreeMap<(u64, RequestId), u32> = BTreeMap::new();
        let mut ours: IndexMap<(u64, RequestId), u32> = IndexMap::new();
        for round in 0..4000u32 {
            let number = [0, 1, 15, 16, 255, 256, u64::MAX, 1 << 40][below(8) as usize];
            let key = (number, rid(ids[below(ids.len() as u64) as usize]));
            match below(4) {
                0 | 1 => assert_eq!(ours.insert(key.clone(), round), theirs.insert(key, round)),
                2 => assert_eq!(ours.remove(&key), theirs.remove(&key)),
                _ => assert_eq!(ours.get(&key), theirs.get(&key)),
            }
            assert_eq!(ours.len(), theirs.len());
        }
        assert!(ours.iter().eq(theirs.iter()));
        assert!(ours.iter().rev().eq(theirs.iter().rev()));
        let drained = ours.drain();
        assert!(drained.into_iter().eq(theirs.into_iter()));
        assert!(ours.is_empty());
    }

    /// The search that skips shared prefixes finds what `binary_search` finds, in indexes of texts that share long
    /// prefixes and differ within and across 8-byte words, including prefixes of one another.
    #[test]
    fn the_search_answers_as_a_binary_search_does() {
        let mut state = 11u64;
        let mut below = |n: u64| next(&mut state) % n;
        let stems = ["", "webmcp:p:http://127.0.0.1:8080\0", "webmcp:p:http://127.0.0.1:8081\0", "webmcp:c:"];
        let random_text = |below: &mut dyn FnMut(u64) -> u64| {
            let mut text = stems[below(stems.len() as u64) as usize].to_owned();
            for _ in 0..below(20) {
                text.push(char::from(b"ab\0z~"[below(5) as usize]));
            }
            text
        };
        for _ in 0..300 {
            let mut texts: Vec<String> = (0..below(40)).map(|_| random_text(&mut below)).collect();
            texts.sort();
            texts.dedup();
            let index: Vec<(Box<str>, u32)> = texts.iter().map(|t| (t.clone().into_boxed_str(), 0)).collect();
            for _ in 0..50 {
                let probe = if below(2) == 0 && !texts.is_empty() {
                    texts[below(texts.len() as u64) as usize].clone()
                } else {
                    random_text(&mut below)
                };
                assert_eq!(search(&index, &probe), texts.binary_search(&probe), "{probe:?} in {texts:?}");
            }
        }
    }

    #[test]
    fn a_set_of_text_pairs_orders_as_a_btree_set() {
        let pairs = [("https://a.example", "x"), ("https://a.example.", "a"), ("https://a.exampl", "z"), ("", "b")];
        let theirs: BTreeSet<(String, RequestId)> = pairs.iter().map(|(o, i)| ((*o).to_owned(), rid(i))).collect();
        let mut ours = IndexSet::new();
        for (origin, id) in pairs {
            assert!(ours.insert((origin.to_owned(), rid(id))));
        }
        assert!(!ours.insert(("".to_owned(), rid("b"))));
        assert!(ours.iter().eq(theirs.iter()));
        assert_eq!(ours.first(), theirs.first());
    }

    #[test]
    fn window_origins_order_as_their_type_does() {
        let origins = ["null", "https://b.example", "http://a.example", "https://a.example:8443"];
        let mut theirs: Vec<WindowOrigin> = origins.iter().map(|o| WindowOrigin::from_browser(o)).collect();
        let ours: IndexSet<WindowOrigin> = {
            let mut set = IndexSet::new();
            for origin in &theirs {
                set.insert(origin.clone());
            }
            set
        };
        theirs.sort();
        assert!(ours.iter().eq(theirs.iter()));
    }
}
