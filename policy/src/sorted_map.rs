//! An ordered map and set kept as sorted vectors, for the small collections: the session's windows, ports, waiters,
//! runs, listings and status questions, the guards' entries per origin, the provider journal's counts per origin,
//! and the driver's handles.
//!
//! They iterate in key order, like `BTreeMap` and `BTreeSet`, so the same inputs give the same effects in the same
//! order; what they change is the cost in the download. Every `BTreeMap<K, V>` brings its own copy of the B-tree's
//! node code for its `K` and `V` (in the bridge's wasm that came to about a quarter of all code, 221 KB of 865 KB,
//! measured with twiggy: docs/measurements/history.md, issue 16); here a search is a binary search of the keys' vector and
//! moving the values is `Vec`'s insert and remove. Use them where a map stays small or its keys are counters that
//! only grow (a key after the last is pushed without a search). A map that can hold thousands of random keys moves
//! half its tail on every insert and remove (40 µs per call in the provider's frame when its journal used this
//! map): the journals' records, the calls in flight and the storage log use [`crate::index_map`] instead.
//!
//! `litemap` also keeps a map in a sorted vector; this one is kept as a few hundred lines with no dependency, shaped
//! for its uses (the keys in a vector of their own, so a search reads no values; a key after the last pushed without
//! a search). Their difference in wasm size is not measured here.

use std::borrow::Borrow;
use std::fmt;
use std::iter::Zip;
use std::slice;

/// A map ordered by key, stored as two sorted vectors (keys, and values at the same positions).
#[derive(Clone, PartialEq, Eq)]
pub struct SortedMap<K, V> {
    keys: Vec<K>,
    values: Vec<V>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K, V> SortedMap<K, V> {
    /// An empty map; it allocates nothing until the first insert.
    pub const fn new() -> Self {
        Self { keys: Vec::new(), values: Vec::new() }
    }

    /// How many entries the map holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the map holds no entry.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> Zip<slice::Iter<'_, K>, slice::Iter<'_, V>> {
        self.keys.iter().zip(self.values.iter())
    }

    /// The entries in key order, values mutable.
    pub fn iter_mut(&mut self) -> Zip<slice::Iter<'_, K>, slice::IterMut<'_, V>> {
        self.keys.iter().zip(self.values.iter_mut())
    }

    /// The keys in order.
    pub fn keys(&self) -> slice::Iter<'_, K> {
        self.keys.iter()
    }

    /// The values in key order.
    pub fn values(&self) -> slice::Iter<'_, V> {
        self.values.iter()
    }

    /// The entry of the smallest key.
    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.keys.first().zip(self.values.first())
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.values.clear();
    }

    /// Keeps the entries for which `keep` answers true, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        let keys = std::mem::take(&mut self.keys);
        let values = std::mem::take(&mut self.values);
        self.keys.reserve(keys.len());
        self.values.reserve(values.len());
        for (key, mut value) in keys.into_iter().zip(values) {
            if keep(&key, &mut value) {
                self.keys.push(key);
                self.values.push(value);
            }
        }
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    /// Where `key` is (`Ok`) or would go (`Err`).
    fn position<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        // Keys that only grow are the common case: a new one goes at the end without a search.
        match self.keys.last() {
            Some(last) if last.borrow() < key => Err(self.keys.len()),
            None => Err(0),
            Some(_) => self.keys.binary_search_by(|probe| probe.borrow().cmp(key)),
        }
    }

    /// The value of `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.position(key).ok().map(|at| &self.values[at])
    }

    /// The value of `key`, mutable.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.position(key).ok().map(|at| &mut self.values[at])
    }

    /// Whether `key` has an entry.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.position(key).is_ok()
    }

    /// Puts `value` under `key`; answers the value it replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.position(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.values[at], value)),
            Err(at) => {
                self.keys.insert(at, key);
                self.values.insert(at, value);
                None
            }
        }
    }

    /// Takes the entry of `key` out; answers its value.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let at = self.position(key).ok()?;
        self.keys.remove(at);
        Some(self.values.remove(at))
    }

    /// The entry of `key`, to fill if it is missing.
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        let at = self.position(&key);
        Entry { map: self, at, key }
    }
}

/// One key's place in a [`SortedMap`], filled or not.
pub struct Entry<'a, K, V> {
    map: &'a mut SortedMap<K, V>,
    at: Result<usize, usize>,
    key: K,
}

impl<'a, K, V> Entry<'a, K, V> {
    /// The value of the key, inserting `make()` first if there is none.
    pub fn or_insert_with(self, make: impl FnOnce() -> V) -> &'a mut V {
        let at = match self.at {
            Ok(at) => at,
            Err(at) => {
                self.map.keys.insert(at, self.key);
                self.map.values.insert(at, make());
                at
            }
        };
        &mut self.map.values[at]
    }

    /// The value of the key, inserting `value` first if there is none.
    pub fn or_insert(self, value: V) -> &'a mut V {
        self.or_insert_with(|| value)
    }

    /// The value of the key, inserting the default value first if there is none.
    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'a, K, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Zip<slice::Iter<'a, K>, slice::Iter<'a, V>>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = Zip<std::vec::IntoIter<K>, std::vec::IntoIter<V>>;

    fn into_iter(self) -> Self::IntoIter {
        self.keys.into_iter().zip(self.values)
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    /// Later entries of a key replace earlier ones, as `BTreeMap` does.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut map = Self::new();
        map.extend(entries);
        map
    }
}

impl<K: Ord, V> Extend<(K, V)> for SortedMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, entries: I) {
        for (key, value) in entries {
            self.insert(key, value);
        }
    }
}

/// A set ordered by value: a [`SortedMap`] of its items to nothing (a `Vec<()>` allocates nothing).
#[derive(Clone, PartialEq, Eq)]
pub struct SortedSet<T> {
    map: SortedMap<T, ()>,
}

impl<T> Default for SortedSet<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> SortedSet<T> {
    /// An empty set; it allocates nothing until the first insert.
    pub const fn new() -> Self {
        Self { map: SortedMap::new() }
    }

    /// How many items the set holds.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the set holds no item.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The items in order.
    pub fn iter(&self) -> slice::Iter<'_, T> {
        self.map.keys()
    }

    /// The smallest item.
    pub fn first(&self) -> Option<&T> {
        self.map.first_key_value().map(|(item, ())| item)
    }

    /// Removes every item.
    pub fn clear(&mut self) {
        self.map.clear();
    }

    /// Keeps the items for which `keep` answers true.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        self.map.retain(|item, ()| keep(item));
    }
}

impl<T: Ord> SortedSet<T> {
    /// Adds `item`; answers whether it was new.
    pub fn insert(&mut self, item: T) -> bool {
        self.map.insert(item, ()).is_none()
    }

    /// Takes `item` out; answers whether it was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.map.remove(item).is_some()
    }

    /// Whether `item` is in the set.
    pub fn contains<Q: Ord + ?Sized>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.map.contains_key(item)
    }
}

impl<T: fmt::Debug> fmt::Debug for SortedSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<'a, T> IntoIterator for &'a SortedSet<T> {
    type Item = &'a T;
    type IntoIter = slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T> IntoIterator for SortedSet<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.map.keys.into_iter()
    }
}

impl<T: Ord> FromIterator<T> for SortedSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut set = Self::new();
        set.extend(items);
        set
    }
}

impl<T: Ord> Extend<T> for SortedSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for item in items {
            self.insert(item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::next;
    use std::collections::{BTreeMap, BTreeSet};

    #[test]
    fn the_map_does_what_a_btree_map_does() {
        let mut state = 0x9E37_79B9_7F4A_7C15;
        let mut ours: SortedMap<u16, u64> = SortedMap::new();
        let mut theirs: BTreeMap<u16, u64> = BTreeMap::new();
        for step in 0..20_000u64 {
            let key = (next(&mut state) % 300) as u16;
            match next(&mut state) % 6 {
                0 | 1 => assert_eq!(ours.insert(key, step), theirs.insert(key, step)),
                2 => assert_eq!(ours.remove(&key), theirs.remove(&key)),
                3 => {
                    *ours.entry(key).or_default() += 1;
                    *theirs.entry(key).or_default() += 1;
                }
                4 => {
                    ours.retain(|k, v| (u64::from(*k) + *v) % 7 != 0);
                    theirs.retain(|k, v| (u64::from(*k) + *v) % 7 != 0);
                }
                _ => assert_eq!(ours.get(&key), theirs.get(&key)),
            }
            assert!(ours.iter().eq(theirs.iter()));
            assert_eq!(ours.first_key_value(), theirs.first_key_value());
        }
    }

    #[test]
    fn entry_and_retain_agree_with_a_btree_map() {
        let mut ours: SortedMap<String, u32> = SortedMap::new();
        let mut theirs: BTreeMap<String, u32> = BTreeMap::new();
        for word in ["b", "a", "c", "a", "d", "b", "a"] {
            *ours.entry(word.to_owned()).or_default() += 1;
            *theirs.entry(word.to_owned()).or_default() += 1;
        }
        assert!(ours.iter().eq(theirs.iter()));
        ours.retain(|_, n| *n > 1);
        theirs.retain(|_, n| *n > 1);
        assert!(ours.iter().eq(theirs.iter()));
        assert_eq!(ours.get("a"), Some(&3));
        assert!(!ours.contains_key("c"));
        let collected: SortedMap<&str, u8> = [("z", 1), ("y", 2), ("z", 3)].into_iter().collect();
        assert_eq!(collected.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(), vec![("y", 2), ("z", 3)]);
    }

    #[test]
    fn the_set_does_what_a_btree_set_does() {
        let mut state = 0x2545_F491_4F6C_DD1D;
        let mut ours: SortedSet<(u8, u8)> = SortedSet::new();
        let mut theirs: BTreeSet<(u8, u8)> = BTreeSet::new();
        for _ in 0..20_000 {
            let item = ((next(&mut state) % 20) as u8, (next(&mut state) % 20) as u8);
            if next(&mut state).is_multiple_of(2) {
                assert_eq!(ours.insert(item), theirs.insert(item));
            } else {
                assert_eq!(ours.remove(&item), theirs.remove(&item));
            }
            assert_eq!(ours.contains(&item), theirs.contains(&item));
            assert_eq!(ours.first(), theirs.first());
            assert!(ours.iter().eq(theirs.iter()));
        }
    }
}
