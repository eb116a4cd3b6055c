#!/usr/bin/env python3
"""The example service's own manifest against the copy CI builds.

CI builds Examples/BookingService in the root package's graph (Package.swift, under
SLOTSCHEDULER_CI_EXAMPLE=1), so Examples/BookingService/Package.swift is never read there. This
check keeps the two in step: every package the example depends on is declared by the root with
the same requirement, and the example's target names the same products (the root's own libraries
by target name).

    python3 Scripts/check-example-manifest.py

Exits 1, naming each difference, when they disagree.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_URL = re.compile(r'\.package\(url:\s*"([^"]+)",\s*([^)]*?)\)')
PRODUCT = re.compile(r'\.product\(name:\s*"([^"]+)",\s*package:\s*(?:"([^"]+)"|(\w+))\)')
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


def products(text: str) -> set[str]:
    found = set()
    for name, package, variable in PRODUCT.findall(text):
        found.add(name if variable == "root" else f"{package}:{name}")
    return found


def main() -> int:
    example = (ROOT / "Examples/BookingService/Package.swift").read_text()
    root = (ROOT / "Package.swift").read_text()
    marker = 'if Context.environment["SLOTSCHEDULER_CI_EXAMPLE"] == "1"'
    if marker not in root:
        print(f"error: Package.swift has no `{marker}` block", file=sys.stderr)
        return 1
    ci_block = root[root.index(marker):]
    problems = []

    root_packages = packages(root)
    for url, requirement in sorted(packages(example).items()):
        if url not in root_packages:
            problems.append(f"{url} is a dependency of the example, not of Package.swift")
        elif root_packages[url] != requirement:
            problems.append(f"{url}: the example asks {requirement}, Package.swift {root_packages[url]}")

    wanted = products(example)
    own_in_ci = {name for name in OWN_LIBRARIES if f'"{name}"' in ci_block.split("dependencies: [", 2)[-1]}
    built = products(ci_block) | own_in_ci
    for missing in sorted(wanted - built):
        problems.append(f"the example's target uses {missing}; the CI block's does not")
    for extra in sorted(built - wanted):
        problems.append(f"the CI block's target uses {extra}; the example's does not")

    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"example manifest: {len(packages(example))} packages and {len(wanted)} products agree with Package.swift")
    return 0


if __name__ == "__main__":
    sys.exit(main())
