#!/usr/bin/env python3
"""Fails when the bridge crate's modules use each other in a circle (issue 14: the driver is a layer, not a knot).

A module's uses are the `crate::<module>` paths in its code (comments left out) and the crate-root names it
imports, mapped to the module that defines them. `native::registry` counts as its own module: it is the part of
`native` that sits below the driver. Prints the graph and exits 1 with each cycle found.
"""
import glob
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bridge", "src")
# Names re-exported at the crate root, and the module each comes from.
ROOT = {
    "RemoteTool": "tool_types", "ToolResult": "tool_types", "ToolFuture": "tool_types", "CallOptions": "tool_types",
    "BridgeError": "error", "CallError": "error", "BridgeOptions": "options", "ListenerGuard": "listeners",
    "Bridge": "rust_api", "ToolCall": "rust_api", "ToolDefinition": "rust_api", "ToolRegistration": "rust_api",
    "BridgeHandle": "js_api",
}


def node_of(path):
    """The module a file belongs to: its top-level module, or `native::registry`."""
    rel = os.path.relpath(path, SRC)
    if rel == os.path.join("native", "registry.rs"):
        return "native::registry"
    top = rel.split(os.sep)[0]
    return top[:-3] if top.endswith(".rs") else top


def graph():
    uses = {}
    for path in glob.glob(os.path.join(SRC, "**", "*.rs"), recursive=True):
        node = node_of(path)
        if node == "lib":
            continue
        with open(path, encoding="utf-8") as file:
            code = "\n".join(line for line in file if not line.strip().startswith("//"))
        found = set()
        for match in re.finditer(r"crate::(\w+)(?:::(\w+))?", code):
            name = "native::registry" if match.group(1) == "native" and match.group(2) == "registry" else match.group(1)
            found.add(ROOT.get(name, name))
        for group in re.finditer(r"use crate::\{([^}]*)\}", code, re.S):
            for part in group.group(1).split(","):
                name = part.strip().split("::")[0]
                if name:
                    found.add(ROOT.get(name, name))
        uses.setdefault(node, set()).update(found - {node})
    return {node: {used for used in targets if used in uses} for node, targets in uses.items()}


def cycles(edges):
    found, done = [], set()

    def visit(node, path):
        for used in sorted(edges.get(node, ())):
            if used in path:
                found.append(path[path.index(used):] + [used])
            elif used not in done:
                visit(used, path + [used])
        done.add(node)

    for node in sorted(edges):
        if node not in done:
            visit(node, [node])
    return found


if __name__ == "__main__":
    edges = graph()
    for node in sorted(edges):
        print(f"{node} -> {', '.join(sorted(edges[node])) or '-'}")
    circles = cycles(edges)
    for circle in circles:
        print("cycle: " + " -> ".join(circle), file=sys.stderr)
    sys.exit(1 if circles else 0)
