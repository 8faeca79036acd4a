#!/usr/bin/env python3
"""The layout rules of docs/architecture.md, checked: no source file over 400 lines, no function
over 80 lines, no initialiser over 10 parameters, one command per file in the CLI. Prints each
breach as `file:line: what` and exits 1 on any (run by `make test` through LayoutTests)."""
import re, sys, pathlib

root = pathlib.Path(__file__).resolve().parent.parent
DECL = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|internal|fileprivate|package|static|class|final|override|mutating|nonisolated|convenience|required)\s+)*(func\s+[^\s(<]+|init[?!]?)\s*[(<]')
problems = []

def strip_strings(line):
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', line.split('//')[0] if '"' not in line.split('//')[0] else line)

for path in sorted((root / 'Sources').rglob('*.swift')):
    rel = path.relative_to(root)
    lines = path.read_text().split('\n')
    if len(lines) > 401:
        problems.append(f'{rel}:1: {len(lines) - 1} lines (at most 400)')
    i = 0
    while i < len(lines):
        m = DECL.match(lines[i])
        if not m:
            i += 1
            continue
        # The signature runs to the line that opens the body.
        j, signature = i, ''
        while j < len(lines) and '{' not in strip_strings(lines[j]):
            signature += lines[j]
            j += 1
        if j == len(lines):
            break
        signature += lines[j].split('{')[0]
        if m.group(1).startswith('init'):
            params = signature[signature.index('(') + 1:]
            depth, count, seen = 0, 0, False
            for ch in params:
                if ch in '([<': depth += 1
                elif ch in ')]>':
                    if depth == 0: break
                    depth -= 1
                elif ch == ',' and depth == 0: count += 1
                elif not ch.isspace(): seen = True
            if seen and count + 1 > 10:
                problems.append(f'{rel}:{i + 1}: an initialiser of {count + 1} parameters (at most 10)')
        depth, k = 0, j
        while k < len(lines):
            code = strip_strings(lines[k])
            depth += code.count('{') - code.count('}')
            if depth <= 0 and k >= j:
                break
            k += 1
        length = k - i + 1
        if length > 80:
            problems.append(f'{rel}:{i + 1}: {m.group(1)} is {length} lines (at most 80)')
        i += 1

for path in sorted((root / 'Sources' / 'slowpoke').glob('*.swift')):
    commands = re.findall(r'^(?:struct|final class) \w+: (?:Async)?ParsableCommand', path.read_text(), re.M)
    if len(commands) > 1:
        problems.append(f'{path.relative_to(root)}:1: {len(commands)} commands (one per file)')

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
