//! A map from origin to state that holds at most a fixed number of origins, forgetting the least recently used.

use crate::sorted_map::SortedMap;

/// Per-origin state, bounded. A `SortedMap` keyed by the origin text: lookups take a `&str` and allocate nothing,
/// and the order is deterministic (no random hasher).
#[derive(Debug, Clone)]
pub(crate) struct OriginTable<V> {
    entries: SortedMap<String, Entry<V>>,
    capacity: usize,
    /// Counts lookups; an entry's `used` is the count at its last lookup.
    clock: u64,
}

#[derive(Debug, Clone)]
struct Entry<V> {
    value: V,
    used: u64,
}

impl<V> OriginTable<V> {
    /// A table of at most `capacity` origins.
    pub(crate) fn new(capacity: usize) -> Self {
        Self { entries: SortedMap::new(), capacity, clock: 0 }
    }

    /// The state of `origin`, made by `make` when the origin is new (forgetting the least recently used origin
    /// when the table is full). `None` only when the capacity is 0.
    pub(crate) fn entry(&mut self, origin: &str, make: impl FnOnce() -> V) -> Option<&mut V> {
        self.clock += 1;
        if !self.entries.contains_key(origin) {
            if self.capacity == 0 {
                return None;
            }
            if self.entries.len() >= self.capacity {
                let oldest = self.entries.iter().min_by_key(|(_, entry)| entry.used).map(|(key, _)| key.clone());
                if let Some(oldest) = oldest {
                    self.entries.remove(&oldest);
                }
            }
            self.entries.insert(origin.to_owned(), Entry { value: make(), used: 0 });
        }
        let entry = self.entries.get_mut(origin)?;
        entry.used = self.clock;
        Some(&mut entry.value)
    }

    /// How many origins are tracked.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether `origin` is tracked.
    #[cfg(test)]
    pub(crate) fn contains(&self, origin: &str) -> bool {
        self.entries.contains_key(origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_origin_is_forgotten() {
        let mut table = OriginTable::new(2);
        *table.entry("https://a.example", || 0).unwrap() += 1;
        *table.entry("https://b.example", || 0).unwrap() += 1;
        *table.entry("https://a.example", || 0).unwrap() += 1;
        *table.entry("https://c.example", || 0).unwrap() += 1;
        assert_eq!(table.len(), 2);
        assert!(table.contains("https://a.example"));
        assert!(!table.contains("https://b.example"));
        assert_eq!(*table.entry("https://a.example", || 0).unwrap(), 2);
        assert!(OriginTable::<u8>::new(0).entry("https://a.example", || 0).is_none());
    }
}
