//! The path rule of a listed tool where the browser has native WebMCP: `merge_listings`, as a table.

use interpane_policy::call_path::{CallPath, Merged, merge_listings};

#[test]
fn each_tool_once_with_its_path() {
    // (what the bridge listed, what native listed, the merged list)
    type Row = (&'static [(usize, &'static str)], &'static [(usize, &'static str)], &'static [Merged]);
    let table: &[Row] = &[
        // Nothing anywhere.
        (&[], &[], &[]),
        // A bridge peer in a browser without native WebMCP (or native refused to list).
        (&[(1, "add")], &[], &[Merged::Bridge(0)]),
        // A native-only page: native's path.
        (&[], &[(1, "add")], &[Merged::Native(0)]),
        // A bridge page reached both ways: once, the bridge's path.
        (&[(1, "add")], &[(1, "add")], &[Merged::Bridge(0)]),
        // This page's own tools, mirrored with native by the bridge: once, the bridge's path.
        (&[(0, "own"), (1, "add")], &[(1, "add"), (0, "own")], &[Merged::Bridge(1), Merged::Bridge(0)]),
        // The same name in two windows: two tools.
        (&[(1, "add")], &[(2, "add")], &[Merged::Bridge(0), Merged::Native(0)]),
        // A bridge page with a tool other code registered with native only: that one takes native's path.
        (&[(1, "add")], &[(1, "add"), (1, "other")], &[Merged::Bridge(0), Merged::Native(1)]),
        // A name native lists twice for one window is kept once.
        (&[], &[(3, "x"), (3, "x")], &[Merged::Native(0)]),
        // Order: by name, as every listing (getTools() in the JavaScript and the Rust API alike).
        (
            &[(2, "b"), (1, "a")],
            &[(3, "z"), (1, "a"), (3, "y")],
            &[Merged::Bridge(1), Merged::Bridge(0), Merged::Native(2), Merged::Native(0)],
        ),
        // Among equal names, the bridge's entries first, then native's, each in its own order.
        (
            &[(2, "a"), (1, "a")],
            &[(3, "a"), (4, "a")],
            &[Merged::Bridge(0), Merged::Bridge(1), Merged::Native(0), Merged::Native(1)],
        ),
    ];
    for (bridge, native, expected) in table {
        assert_eq!(&merge_listings(bridge, native), expected, "bridge {bridge:?}, native {native:?}");
    }
}

#[test]
fn paths_and_their_names() {
    assert_eq!(Merged::Bridge(3).path(), CallPath::Bridge);
    assert_eq!(Merged::Native(0).path(), CallPath::Native);
    assert_eq!(CallPath::Bridge.as_str(), "bridge");
    assert_eq!(CallPath::Native.as_str(), "native");
}
