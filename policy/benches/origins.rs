//! Cost of `OriginList::allows`, which the bridge calls on every message: lists of 1, 10 and 1000 exact origins
//! (a hit and a miss), a list with one wildcard (a hit, a miss, and an exact hit next to it), and the cost of
//! parsing a 10-entry list.
//!
//! Run with `cargo bench -p interpane-policy --bench origins`.

#[cfg(not(target_arch = "wasm32"))]
#[allow(clippy::unwrap_used, reason = "a benchmark whose inputs do not behave as described must stop at once")]
mod native {
    use std::hint::black_box;

    use criterion::{BenchmarkId, Criterion, criterion_group};
    use interpane_policy::{OriginList, ParseOptions};

    /// `count` distinct origins, comma-separated, with a few ports and schemes mixed in.
    fn exact_list(count: usize) -> String {
        (0..count)
            .map(|i| match i % 4 {
                0 => format!("https://site-{i}.example"),
                1 => format!("https://app-{i}.example.com:8443"),
                2 => format!("http://dev-{i}.localhost:3000"),
                _ => format!("https://www.shop-{i}.example.org"),
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    fn allows_exact(c: &mut Criterion) {
        let mut group = c.benchmark_group("origins/allows/exact");
        for count in [1, 10, 1000] {
            let list = OriginList::parse(&exact_list(count)).unwrap();
            assert_eq!(list.len(), count);
            let hit = "https://site-0.example";
            let miss = "https://site-0.example.evil";
            assert!(list.allows(hit) && !list.allows(miss));
            group.bench_with_input(BenchmarkId::new("hit", count), &list, |b, list| {
                b.iter(|| list.allows(black_box(hit)))
            });
            group.bench_with_input(BenchmarkId::new("miss", count), &list, |b, list| {
                b.iter(|| list.allows(black_box(miss)))
            });
        }
        group.finish();
    }

    fn allows_wildcard(c: &mut Criterion) {
        let options = ParseOptions::default().allow_wildcards(true);
        let list =
            OriginList::parse_with("https://shop.example,https://*.widgets.example.com,http://localhost:8080", options)
                .unwrap();
        let cases = [
            ("subdomain_hit", "https://eu.cdn.widgets.example.com", true),
            ("miss", "https://widgets.example.com.evil.example", false),
            ("exact_hit", "https://shop.example", true),
        ];
        let mut group = c.benchmark_group("origins/allows/wildcard");
        for (name, origin, allowed) in cases {
            assert_eq!(list.allows(origin), allowed, "{origin}");
            group.bench_function(name, |b| b.iter(|| list.allows(black_box(origin))));
        }
        group.finish();
    }

    fn parse(c: &mut Criterion) {
        let text = exact_list(10);
        assert_eq!(OriginList::parse(&text).unwrap().len(), 10);
        c.bench_function("origins/parse/10", |b| b.iter(|| OriginList::parse(black_box(&text))));
    }

    criterion_group!(benches, allows_exact, allows_wildcard, parse);
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(native::benches);

#[cfg(target_arch = "wasm32")]
fn main() {}
