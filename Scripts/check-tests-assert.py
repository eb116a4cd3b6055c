#!/usr/bin/env python3
"""Lists every Swift Testing `@Test` function that asserts nothing, and exits 1 if there is one.

A test asserts when its body (comments and string literals left out) contains `#expect`,
`#require`, `Issue.record` or `confirmation(`, or calls an *asserting helper*: a function defined
in the test files (not itself a `@Test`) whose body asserts in the same sense, found to a fixed
point (a helper calling an asserting helper asserts). A name defined more than once asserts only
when every definition does. A helper whose name is also a `func` in Sources/ counts only when
called bare or as `Self.name(`, never as `something.name(` (that may be the library's).
`EXTRA_HELPERS` below lists asserting helpers defined outside the test files (none today).

A test that only calls code and discards the result (`_ = try? ...`) cannot fail, so it is
flagged; say what it should find with `#expect`.

Usage: Scripts/check-tests-assert.py [--verbose] [ROOT]
  ROOT defaults to the repository (this script's parent directory); every *.swift under
  ROOT/Tests is read. Prints `path:line: test name asserts nothing` per test found, then a count.
  Exit status: 0 every test asserts, 1 some test asserts nothing, 2 the scan could not read a file.
"""
import pathlib
import re
import sys

ASSERTION = re.compile(r"#expect\b|#require\b|\bIssue\s*\.\s*record\b|\bconfirmation\s*\(")
# Asserting helpers defined outside Tests/ (for example in a test-support package); none today.
EXTRA_HELPERS: set[str] = set()


def blank(text: str) -> str:
    """Returns `text` with comments and string-literal contents replaced by spaces (newlines kept),
    so braces and tokens in them are not read as code. Handles nested block comments, raw strings
    (`#"..."#`, any number of `#`), multi-line strings and interpolations (blanked with the string)."""
    out = list(text)
    i, n = 0, len(text)

    def wipe(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            wipe(i, j)
            i = j
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            hashes = 0
            while text[i + hashes] == "#":
                hashes += 1
            j = i + hashes
            multi = text.startswith('"""', j)
            quote = '"""' if multi else '"'
            j += len(quote)
            closing = quote + "#" * hashes
            escape = "\\" + "#" * hashes
            while j < n:
                if text.startswith(escape, j):
                    j += len(escape)
                    if text.startswith("(", j):  # an interpolation: skip to its matching parenthesis
                        depth = 0
                        while j < n:
                            if text[j] == "(":
                                depth += 1
                            elif text[j] == ")":
                                depth -= 1
                                if depth == 0:
                                    break
                            elif text[j] == '"':  # a string inside the interpolation
                                k = text.find('"', j + 1)
                                j = n if k < 0 else k
                            j += 1
                    else:
                        j += 1
                    continue
                if text.startswith(closing, j):
                    j += len(closing)
                    break
                if not multi and text[j] == "\n":
                    break
                j += 1
            wipe(i, j)
            i = j
        else:
            i += 1
    return "".join(out)


FUNC = re.compile(r"\bfunc\s+([A-Za-z_][A-Za-z0-9_]*|`[^`]+`)")
TEST_ATTR = re.compile(r"@Test\b")


def body_span(code: str, start: int) -> tuple[int, int] | None:
    """The span of the body of the `func` whose name ends at `start`: from its `{` to the matching
    `}`, or None for a declaration without a body."""
    i, n, depth = start, len(code), 0
    while i < n:
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "{" and depth == 0:
            break
        elif c == "}" and depth == 0:
            return None
        elif depth == 0 and FUNC.match(code, i):
            return None
        i += 1
    if i >= n:
        return None
    open_at, depth = i, 0
    while i < n:
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return open_at, i + 1
        i += 1
    return None


def functions(path: pathlib.Path, code: str):
    """Every function in `code`: (name, line, body, is_test)."""
    tests = set()
    for m in TEST_ATTR.finditer(code):
        f = FUNC.search(code, m.end())
        if f:
            tests.add(f.start())
    for f in FUNC.finditer(code):
        span = body_span(code, f.end())
        if span is None:
            continue
        line = code.count("\n", 0, f.start()) + 1
        yield f.group(1).strip("`"), line, code[span[0] : span[1]], f.start() in tests


def library_names(root: pathlib.Path) -> set[str]:
    names = set()
    for path in sorted((root / "Sources").rglob("*.swift")):
        names.update(m.group(1).strip("`") for m in FUNC.finditer(blank(path.read_text(encoding="utf-8"))))
    return names


def calls(body: str, name: str, library: bool) -> bool:
    pattern = r"(?<![A-Za-z0-9_])" + re.escape(name) + r"\s*[({]"
    for m in re.finditer(pattern, body):
        before = body[: m.start()].rstrip()
        if before.endswith("func"):
            continue
        if library and before.endswith(".") and not before[:-1].rstrip().endswith("Self"):
            continue
        return True
    return False


def main(argv: list[str]) -> int:
    verbose = "--verbose" in argv
    args = [a for a in argv if a != "--verbose"]
    root = pathlib.Path(args[0]) if args else pathlib.Path(__file__).resolve().parent.parent
    files = sorted((root / "Tests").rglob("*.swift"))
    if not files:
        print(f"no Swift files under {root / 'Tests'}", file=sys.stderr)
        return 2
    library = library_names(root)
    tests, helpers = [], {}
    for path in files:
        try:
            code = blank(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            print(f"{path}: {error}", file=sys.stderr)
            return 2
        for name, line, body, is_test in functions(path, code):
            if is_test:
                tests.append((path.relative_to(root), line, name, body))
            else:
                helpers.setdefault(name, []).append(body)
    asserting = set(EXTRA_HELPERS)
    changed = True
    while changed:  # to a fixed point: a helper asserting through another helper asserts
        changed = False
        for name, bodies in helpers.items():
            if name in asserting:
                continue
            if all(
                ASSERTION.search(b) or any(calls(b, h, h in library) for h in asserting if h != name) for b in bodies
            ):
                asserting.add(name)
                changed = True
    silent = [
        (path, line, name)
        for path, line, name, body in tests
        if not ASSERTION.search(body) and not any(calls(body, h, h in library) for h in asserting)
    ]
    if verbose:
        print(f"asserting helpers: {', '.join(sorted(asserting))}")
    for path, line, name in silent:
        print(f"{path}:{line}: test {name} asserts nothing")
    print(f"{len(tests)} tests, {len(silent)} without an assertion")
    return 1 if silent else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
