#!/usr/bin/env python3
"""The layout rules of docs/architecture.md, checked: no source file over 400 lines, no function
over 80 lines, no initialiser over 10 parameters, one command per file in the CLI. Prints each
breach as `file:line: what` and exits 1 on any (run by `make test` through LayoutTests).

A function's body is the first `{` outside its brackets: a signature with a default closure
argument (`progress: ... = { _ in }`) or a generic clause is read past, not taken for the body."""
import re, sys, pathlib

root = pathlib.Path(__file__).resolve().parent.parent
DECL = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|internal|fileprivate|package|static|class|final|override|mutating|nonisolated|convenience|required)\s+)*(func\s+[^\s(<]+|init[?!]?)\s*[(<]')
# What may continue a signature on its next line once its parameters are closed.
CONTINUATION = re.compile(r'^\s*(->|where\b|throws\b|rethrows\b|async\b|\{|,|&)')
problems = []


def string_end(text, i):
    """Where the string literal opening at `i` ends (past its closing quote), reading through
    interpolations (`\\(...)`, which may hold strings of their own); a single-line literal
    stops at the end of its line."""
    n = len(text)
    if text.startswith('"""', i):
        j = text.find('"""', i + 3)
        return n if j < 0 else j + 3
    j = i + 1
    while j < n and text[j] not in '"\n':
        if text.startswith('\\(', j):
            j, depth = j + 2, 1
            while j < n and depth and text[j] != '\n':
                if text[j] == '"':
                    j = string_end(text, j)
                    continue
                depth += {'(': 1, ')': -1}.get(text[j], 0)
                j += 1
        else:
            j += 2 if text[j] == '\\' else 1
    return j + 1 if j < n and text[j] == '"' else j


def code_of(text):
    """The text with comments and string contents blanked (newlines kept), so brackets inside
    them are not counted."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif text[i] == '"':
            j = string_end(text, i)
        else:
            out.append(text[i]); i += 1
            continue
        out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
    return ''.join(out)


def measure(code, start):
    """(line of the body's opening brace, line of its closing brace, parameter text), or None
    for a declaration without a body (a protocol requirement)."""
    depth, i, n, params_start, params = 0, start, len(code), None, None
    while i < n:
        ch = code[i]
        # Operators, not brackets: an arrow, and shifts or comparisons with spaces around them
        # (`budget: Int = 256 << 20`; a generic's `Collection<UInt8>>` has none after it).
        if code[i:i + 2] == '->' or (code[i:i + 2] in ('<<', '>>', '<=', '>=') and code[i + 2:i + 3].isspace()):
            i += 2
            continue
        if ch in '([<':
            if ch == '(' and depth == 0 and params_start is None:
                params_start = i + 1
            depth += 1
        elif ch in ')]>':
            depth -= 1
            if depth == 0 and ch == ')' and params is None and params_start is not None:
                params = code[params_start:i]
        elif ch == '{' and depth == 0:
            break
        elif ch == '\n' and depth == 0 and params is not None:
            if not CONTINUATION.match(code[i + 1:code.find('\n', i + 1) if code.find('\n', i + 1) >= 0 else n]):
                return None
        i += 1
    if i >= n:
        return None
    body, level = i, 0
    while i < n:
        if code[i] == '{': level += 1
        elif code[i] == '}':
            level -= 1
            if level == 0: break
        i += 1
    return code.count('\n', 0, body), code.count('\n', 0, i), params or ''


def parameter_count(params):
    depth, count, seen = 0, 0, False
    for ch in params:
        if ch in '([<{': depth += 1
        elif ch in ')]>}': depth -= 1
        elif ch == ',' and depth == 0: count += 1
        elif not ch.isspace(): seen = True
    return count + 1 if seen else 0


for path in sorted((root / 'Sources').rglob('*.swift')):
    rel = path.relative_to(root)
    text = path.read_text()
    lines = text.split('\n')
    if len(lines) > 401:
        problems.append(f'{rel}:1: {len(lines) - 1} lines (at most 400)')
    code = code_of(text)
    code_lines = code.split('\n')
    offsets = [0]
    for line in code_lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for number, line in enumerate(code_lines):
        m = DECL.match(line)
        if not m:
            continue
        found = measure(code, offsets[number] + m.start(1))
        if found is None:
            continue
        _, end, params = found
        if m.group(1).startswith('init') and parameter_count(params) > 10:
            problems.append(f'{rel}:{number + 1}: an initialiser of {parameter_count(params)} parameters (at most 10)')
        length = end - number + 1
        if length > 80:
            problems.append(f'{rel}:{number + 1}: {m.group(1)} is {length} lines (at most 80)')

for path in sorted((root / 'Sources' / 'slowpoke').glob('*.swift')):
    commands = re.findall(r'^(?:struct|final class) \w+: (?:Async)?ParsableCommand', path.read_text(), re.M)
    if len(commands) > 1:
        problems.append(f'{path.relative_to(root)}:1: {len(commands)} commands (one per file)')

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
