#!/usr/bin/env python3
"""Print the README's schema reference from the `--` comments in schema/*.sql.

Usage: python3 tools/schema_doc.py schema/0001_tables.sql schema/0003_views.sql ...

For each CREATE TABLE / CREATE VIEW: the comment block above it, then a
table of its columns with the comment above each column. The README's
"Schema reference" section is this script's output (a test checks that every
column appears in README.md). Views whose names start with `_` are helpers
of other views and are left out."""
import re
import sys


def parse(text):
    items, comment = [], []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        m = re.match(r'CREATE (TABLE|VIEW)(?: IF NOT EXISTS)? (\w+)', line)
        if line.startswith('--'):
            comment.append(line[2:].strip())
        elif m:
            kind, name = m.groups()
            cols, ccomment = [], []
            i += 1
            while i < len(lines):
                l = lines[i].strip()
                if l.startswith('--'):
                    ccomment.append(l[2:].strip())
                elif l.startswith(')') or l.upper().startswith('AS') or l.upper().startswith('SELECT'):
                    break
                else:
                    cm = re.match(r'(\w+)', l)
                    if cm and cm.group(1).upper() not in ('PRIMARY', 'UNIQUE', 'FOREIGN', 'CHECK'):
                        cols.append((cm.group(1), ' '.join(ccomment)))
                    ccomment = []
                i += 1
            items.append((kind.lower(), name, ' '.join(comment), cols))
            comment = []
        else:
            comment = []
        i += 1
    return items


def main():
    for path in sys.argv[1:]:
        for kind, name, doc, cols in parse(open(path).read()):
            if name.startswith('_'):
                continue  # helper views of other views (style guide 4.4)
            print('#### `%s` (%s)\n' % (name, kind))
            if doc:
                print(doc + '\n')
            print('| column | meaning |\n|---|---|')
            for c, d in cols:
                print('| `%s` | %s |' % (c, d.replace('|', '\\|')))
            print()


main()
