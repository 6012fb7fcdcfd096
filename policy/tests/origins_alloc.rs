#![cfg(not(target_arch = "wasm32"))]
// A counting global allocator needs `unsafe impl GlobalAlloc`; it only forwards to `System`. This test binary is
// the only place in the workspace that allows unsafe code, for this reason alone.
#![allow(unsafe_code)]
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions build the lists
//! `OriginList::allows` allocates nothing: a counting global allocator sees no allocation while it runs, for
//! hits, misses, `null`, long texts and wildcards, on lists of 1, 10 and 1000 origins.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

use interpane_policy::{OriginList, ParseOptions};

/// Counts allocations made by the current thread (tests run on several threads), then forwards to `System`.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: the slot may be gone while the thread exits; such allocations are not ours to count.
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s guarantees hold.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded as is; the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// How many allocations `work` makes on this thread.
fn allocations_during(work: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    work();
    ALLOCATIONS.with(Cell::get) - before
}

fn exact_list(count: usize) -> OriginList {
    let text = (0..count).map(|i| format!("https://site-{i}.example:8443")).collect::<Vec<_>>().join(",");
    OriginList::parse(&text).unwrap()
}

#[test]
fn the_counter_sees_allocations() {
    assert!(allocations_during(|| drop(black_box(vec![1u8; 16]))) >= 1);
    assert!(allocations_during(|| drop(black_box(OriginList::parse("https://a.example").unwrap()))) >= 1);
}

#[test]
fn allows_allocates_nothing() {
    let long = format!("https://{}.example", "a".repeat(10_000));
    let lists = [
        OriginList::empty(),
        exact_list(1),
        exact_list(10),
        exact_list(1000),
        OriginList::parse_with(
            "https://shop.example,https://*.widgets.example.com,http://*.dev.localhost:3000",
            ParseOptions::default().allow_wildcards(true),
        )
        .unwrap(),
    ];
    let candidates = [
        "https://site-0.example:8443",
        "https://site-999.example:8443",
        "https://site-0.example",
        "https://shop.example",
        "https://a.b.widgets.example.com",
        "https://widgets.example.com",
        "http://x.dev.localhost:3000",
        "https://A.widgets.example.com",
        "null",
        "",
        long.as_str(),
    ];
    for list in &lists {
        for candidate in candidates {
            let count = allocations_during(|| {
                black_box(list.allows(black_box(candidate)));
            });
            assert_eq!(count, 0, "allows({candidate:.40}) on a list of {} allocated", list.len());
        }
    }
}
