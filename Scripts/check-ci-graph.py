#!/usr/bin/env python3
"""The example service's and the benchmarks' own manifests against the copies CI builds.

CI builds Examples/BookingService and Benchmarks in the root package's graph (Package.swift,
under SLOTSCHEDULER_CI_GRAPH=1), so their own Package.swift files are never read there. This
check keeps each pair in step: every package a nested manifest depends on (but the root itself)
is declared by the root with the same requirement and traits, and each of its targets names the
same products and plugins as the target of that name in the CI block (the root's own libraries
by target name).

    python3 Scripts/check-ci-graph.py

Exits 1, naming each difference, when they disagree.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NESTED = ["Examples/BookingService/Package.swift", "Benchmarks/Package.swift"]
MARKER = 'if Context.environment["SLOTSCHEDULER_CI_GRAPH"] == "1"'
PACKAGE_URL = re.compile(r'\.package\(url:\s*"([^"]+)",\s*((?:[^()]|\([^()]*\))*?)\)')
PRODUCT = re.compile(r'\.product\(name:\s*"([^"]+)",\s*package:\s*(?:"([^"]+)"|(\w+))\)')
PLUGIN = re.compile(r'\.plugin\(name:\s*"([^"]+)",\s*package:\s*"([^"]+)"\)')
TARGET = re.compile(r'\.executableTarget\(\s*name:\s*"([^"]+)"')
OWN_LIBRARIES = {
    "SlotScheduler",
    "SlotSimulation",
    "SlotSchedulerJournal",
    "SlotSchedulerPostgres",
    "SlotSchedulerObservability",
    "SlotSchedulerOCPP",
}


def packages(text: str) -> dict[str, str]:
    return {url: " ".join(requirement.split()) for url, requirement in PACKAGE_URL.findall(text)}


def targets(text: str) -> dict[str, str]:
    """Each executable target's name and its declaration's text (up to the next target)."""
    found = list(TARGET.finditer(text))
    return {
        m.group(1): text[m.start() : found[i + 1].start() if i + 1 < len(found) else len(text)]
        for i, m in enumerate(found)
    }


def uses(target_text: str) -> set[str]:
    """The products and plugins a target names; the root's own libraries by their name alone."""
    found = set()
    for name, package, variable in PRODUCT.findall(target_text):
        found.add(name if variable == "root" else f"{package}:{name}")
    found |= {f"plugin {package}:{name}" for name, package in PLUGIN.findall(target_text)}
    dependencies = target_text.split("dependencies:", 1)[-1].split("]", 1)[0]
    found |= {name for name in OWN_LIBRARIES if f'"{name}"' in dependencies}
    return found


def compare(nested_path: str, ci_block: str, root_packages: dict[str, str]) -> tuple[list[str], str]:
    nested = (ROOT / nested_path).read_text()
    problems = []
    nested_packages = packages(nested)
    for url, requirement in sorted(nested_packages.items()):
        if url not in root_packages:
            problems.append(f"{nested_path}: {url} is its dependency, not Package.swift's")
        elif root_packages[url] != requirement:
            problems.append(f"{nested_path}: {url}: it asks {requirement}, Package.swift {root_packages[url]}")
    ci_targets = targets(ci_block)
    nested_targets = targets(nested)
    for name, text in sorted(nested_targets.items()):
        if name not in ci_targets:
            problems.append(f"{nested_path}: its target {name} is not in the CI block")
            continue
        wanted, built = uses(text), uses(ci_targets[name])
        for missing in sorted(wanted - built):
            problems.append(f"{nested_path}: {name} uses {missing}; the CI block's does not")
        for extra in sorted(built - wanted):
            problems.append(f"{nested_path}: the CI block's {name} uses {extra}; its own does not")
    summary = f"{nested_path}: {len(nested_packages)} packages and {len(nested_targets)} targets agree"
    return problems, summary


def main() -> int:
    root = (ROOT / "Package.swift").read_text()
    if MARKER not in root:
        print(f"error: Package.swift has no `{MARKER}` block", file=sys.stderr)
        return 1
    ci_block = root[root.index(MARKER) :]
    root_packages = packages(root)
    problems, summaries = [], []
    for path in NESTED:
        found, summary = compare(path, ci_block, root_packages)
        problems += found
        summaries.append(summary)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if problems:
        return 1
    print("\n".join(summaries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
