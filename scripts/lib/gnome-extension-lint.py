#!/usr/bin/env python3
"""gnome-extension-lint.py DIR|ZIP — a static check of a GNOME Shell extension
against the extensions.gnome.org review rules it can see in the text; exit 1
with one line per finding (FILE:LINE: rule: what), 0 when clean.

What it checks, and no more (a lexer, not a JavaScript parser: comments,
strings, template literals and regex literals are skipped; statements are
expected to end with `;`):

  sync-call      no `…_sync(` in code (call_sync, Gio.DBusProxy.new_for_bus_sync,
                 spawn_command_line_sync, …): the shell's main loop must not wait.
  eval           no eval( and no new Function(.
  top-level      each top-level statement of a .js file is an import, an export,
                 a const/let/var, a function or a class declaration; outside
                 function bodies a top-level statement makes no call but
                 Object.freeze( and no `new` (an arrow function there needs a
                 braced body to count as a function body).
  constructor    the constructor of a class that `extends Extension` makes no
                 call but super( and no `new`, and connects nothing.
  enable-disable in each class with enable() and disable(): every
                 `RECEIVER.connect(` in enable() or in a method enable() calls
                 directly (`this._name(`) has `RECEIVER.disconnect(` (the same
                 receiver text) in disable() or a method disable() calls
                 directly; and bus_own_name → bus_unown_name, bus_watch_name →
                 bus_unwatch_name, signal_subscribe → signal_unsubscribe,
                 timeout_add/idle_add → source_remove, the same way. Handlers
                 connected further down (on actors made later and destroyed
                 with them) are not followed.
  metadata       metadata.json has uuid, name, description, shell-version (stable
                 majors), url; session-modes only user/unlock-dialog, and with
                 unlock-dialog the entry point's disable() has a comment naming it.
  stylesheet     St's font-family rule: only the first family may be quoted
                 ("Couldn't parse family in font property" otherwise).
  locale         each locale/LL/LC_MESSAGES/NAME.mo is named for metadata.json's
                 gettext-domain: initTranslations() binds that domain only.
"""
import json
import re
import sys
import zipfile
from pathlib import Path

KEYWORDS_BEFORE_REGEX = {'return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw',
                         'instanceof', 'yield', 'await'}
PUNCT = ['?.', '=>', '...', '===', '!==', '==', '!=', '<=', '>=', '&&', '||', '??', '++', '--', '+=', '-=']
DECLARATION_STARTS = {'import', 'export', 'const', 'let', 'var', 'function', 'class', 'async'}
PAIRS = [('bus_own_name', 'bus_unown_name'), ('bus_watch_name', 'bus_unwatch_name'),
         ('signal_subscribe', 'signal_unsubscribe'), ('timeout_add', 'source_remove'), ('idle_add', 'source_remove')]


class Token:
    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return f'{self.kind}:{self.text}@{self.line}'


def skip_string(src, i, quote):
    i += 1
    while i < len(src) and src[i] != quote:
        i += 2 if src[i] == '\\' else 1
    return i + 1


def skip_template(src, i):
    """From the opening backtick to after the closing one, `${…}` nested."""
    i += 1
    while i < len(src):
        c = src[i]
        if c == '\\':
            i += 2
        elif c == '`':
            return i + 1
        elif src.startswith('${', i):
            i += 2
            depth = 1
            while i < len(src) and depth:
                c = src[i]
                if c in '\'"':
                    i = skip_string(src, i, c)
                    continue
                if c == '`':
                    i = skip_template(src, i)
                    continue
                depth += {'{': 1, '}': -1}.get(c, 0)
                i += 1
        else:
            i += 1
    return i


def tokenize(src):
    tokens, i, line = [], 0, 1
    while i < len(src):
        c = src[i]
        if c == '\n':
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith('//', i):
            i = src.find('\n', i) if '\n' in src[i:] else len(src)
        elif src.startswith('/*', i):
            end = src.find('*/', i + 2)
            end = len(src) if end < 0 else end + 2
            line += src.count('\n', i, end)
            i = end
        elif c in '\'"`':
            end = skip_string(src, i, c) if c != '`' else skip_template(src, i)
            tokens.append(Token('string', src[i:end], line))
            line += src.count('\n', i, end)
            i = end
        elif c == '/':
            prev = tokens[-1] if tokens else None
            if prev is None or (prev.kind == 'punct' and prev.text not in (')', ']')) or \
                    (prev.kind == 'ident' and prev.text in KEYWORDS_BEFORE_REGEX):
                j, in_class = i + 1, False
                while j < len(src) and (src[j] != '/' or in_class):
                    if src[j] == '\\':
                        j += 1
                    elif src[j] == '[':
                        in_class = True
                    elif src[j] == ']':
                        in_class = False
                    j += 1
                j += 1
                while j < len(src) and src[j].isalpha():
                    j += 1
                tokens.append(Token('regex', src[i:j], line))
                i = j
            else:
                tokens.append(Token('punct', '/', line))
                i += 1
        elif c.isalpha() or c in '_$':
            j = i
            while j < len(src) and (src[j].isalnum() or src[j] in '_$'):
                j += 1
            tokens.append(Token('ident', src[i:j], line))
            i = j
        elif c.isdigit():
            j = i
            while j < len(src) and (src[j].isalnum() or src[j] in '._'):
                j += 1
            tokens.append(Token('number', src[i:j], line))
            i = j
        else:
            text = next((p for p in PUNCT if src.startswith(p, i)), c)
            tokens.append(Token('punct', text, line))
            i += len(text)
    return tokens


def matching(tokens, i):
    """The index of the bracket closing tokens[i]."""
    opening = tokens[i].text
    closing = {'(': ')', '[': ']', '{': '}'}[opening]
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].kind == 'punct':
            if tokens[j].text == opening:
                depth += 1
            elif tokens[j].text == closing:
                depth -= 1
                if depth == 0:
                    return j
    return len(tokens) - 1


def is_function_body(tokens, i):
    """tokens[i] is a `{` opening a function or method body."""
    return i > 0 and tokens[i - 1].kind == 'punct' and tokens[i - 1].text in (')', '=>')


def calls_and_news(tokens, start, end):
    """Calls and `new` in tokens[start:end], function bodies skipped: [(token, what)]."""
    found, i = [], start
    while i < end:
        t = tokens[i]
        if t.kind == 'punct' and t.text == '{' and is_function_body(tokens, i):
            i = matching(tokens, i) + 1
            continue
        if t.kind == 'ident' and t.text == 'new':
            found.append((t, '`new`'))
        elif t.kind == 'punct' and t.text == '(' and i > start:
            prev = tokens[i - 1]
            callee = prev.kind == 'ident' and prev.text not in KEYWORDS_BEFORE_REGEX | {'function', 'if', 'for',
                                                                                         'while', 'switch', 'catch'}
            if callee or (prev.kind == 'punct' and prev.text in (')', ']')):
                name = member_chain(tokens, i - 1) if prev.kind == 'ident' else prev.text
                if name != 'Object.freeze':
                    found.append((prev, f'a call of {name}('))
        i += 1
    return found


def member_chain(tokens, i):
    """The receiver text ending at tokens[i] (an ident): `Main.layoutManager`, `this._window`."""
    parts = [tokens[i].text]
    while i >= 2 and tokens[i - 1].kind == 'punct' and tokens[i - 1].text in ('.', '?.') and tokens[i - 2].kind == 'ident':
        parts.insert(0, tokens[i - 2].text)
        i -= 2
    return '.'.join(parts)


def top_level_statements(tokens):
    """[(start, end)] of each top-level statement (end exclusive)."""
    statements, i = [], 0
    while i < len(tokens):
        if tokens[i].kind == 'punct' and tokens[i].text == ';':
            i += 1
            continue
        start, words = i, []
        while i < len(tokens):
            t = tokens[i]
            if t.kind == 'ident' and len(words) < 3:
                words.append(t.text)
            if t.kind == 'punct' and t.text == ';':
                break
            if t.kind == 'punct' and t.text in '([{':
                close = matching(tokens, i)
                declaration = t.text == '{' and ({'function', 'class'} & set(words[:3]))
                i = close + 1
                if declaration:
                    break
                continue
            i += 1
        statements.append((start, i))
    return statements


def check_top_level(path, tokens, report):
    for start, end in top_level_statements(tokens):
        first = tokens[start]
        if first.kind != 'ident' or first.text not in DECLARATION_STARTS:
            report(path, first.line, 'top-level', f'a top-level statement that is no import or declaration: `{first.text}…`')
            continue
        words = [t.text for t in tokens[start:start + 3] if t.kind == 'ident']
        if {'function', 'class'} & set(words):
            continue
        if first.text == 'import' and start + 1 < end and tokens[start + 1].text == '(':
            report(path, first.line, 'top-level', 'a dynamic import() at the top level')
            continue
        for token, what in calls_and_news(tokens, start, end):
            report(path, token.line, 'top-level', f'{what} at the top level (runs at import time)')


def classes(tokens):
    """{name: (extends, {method: (body_start, body_end)})} for every class."""
    found = {}
    for i, t in enumerate(tokens):
        if t.kind != 'ident' or t.text != 'class':
            continue
        j = i + 1
        name = tokens[j].text if tokens[j].kind == 'ident' and tokens[j].text != 'extends' else f'<anonymous@{t.line}>'
        extends = None
        while tokens[j].text != '{':
            if tokens[j].text == 'extends':
                extends = tokens[j + 1].text
            j += 1
        end, methods, k = matching(tokens, j), {}, j + 1
        while k < end:
            if tokens[k].kind == 'ident' and tokens[k + 1].text == '(':
                close = matching(tokens, k + 1)
                if tokens[close + 1].text == '{':
                    body_end = matching(tokens, close + 1)
                    methods[tokens[k].text] = (close + 1, body_end)
                    k = body_end + 1
                    continue
            if tokens[k].text in '([{':
                k = matching(tokens, k) + 1
                continue
            k += 1
        found[name] = (extends, methods)
    return found


def with_direct_callees(tokens, methods, name):
    """Token ranges of METHOD and of the class's methods it calls as this.m( / this._m(."""
    start, end = methods[name]
    ranges = [(start, end)]
    for i in range(start, end - 3):
        if tokens[i].text == 'this' and tokens[i + 1].text == '.' and tokens[i + 3].text == '(':
            callee = tokens[i + 2].text
            if callee in methods and callee != name and methods[callee] not in ranges:
                ranges.append(methods[callee])
    return ranges


def check_enable_disable(path, tokens, report):
    for class_name, (extends, methods) in classes(tokens).items():
        if extends == 'Extension' and 'constructor' in methods:
            start, end = methods['constructor']
            for token, what in calls_and_news(tokens, start + 1, end):
                if what != 'a call of super(':
                    report(path, token.line, 'constructor', f'{class_name}: {what} in the constructor (before enable())')
        if 'enable' not in methods:
            continue
        if 'disable' not in methods:
            report(path, tokens[methods['enable'][0]].line, 'enable-disable', f'{class_name} has enable() but no disable()')
            continue
        enable = with_direct_callees(tokens, methods, 'enable')
        disable = with_direct_callees(tokens, methods, 'disable')
        undone = set()
        names_in_disable = set()
        for start, end in disable:
            for i in range(start, end):
                t = tokens[i]
                if t.kind == 'ident':
                    names_in_disable.add(t.text)
                if t.kind == 'ident' and t.text == 'disconnect' and tokens[i - 1].text in ('.', '?.'):
                    undone.add(member_chain(tokens, i - 2))
        for start, end in enable:
            for i in range(start, end):
                t = tokens[i]
                if t.kind != 'ident' or i + 1 >= end or tokens[i + 1].text != '(':
                    continue
                if t.text == 'connect' and tokens[i - 1].text in ('.', '?.'):
                    receiver = member_chain(tokens, i - 2)
                    if receiver not in undone:
                        report(path, t.line, 'enable-disable',
                               f'{class_name}: {receiver}.connect( in enable() with no {receiver}.disconnect( in disable()')
                for make, undo in PAIRS:
                    if t.text.startswith(make) and undo not in names_in_disable:
                        report(path, t.line, 'enable-disable', f'{class_name}: {t.text}( in enable() with no {undo}( in disable()')


def check_js(path, src, report):
    tokens = tokenize(src)
    for i, t in enumerate(tokens):
        if t.kind != 'ident':
            continue
        follows_call = i + 1 < len(tokens) and tokens[i + 1].text == '('
        if t.text.endswith('_sync') and follows_call:
            report(path, t.line, 'sync-call', f'{member_chain(tokens, i)}( blocks the main loop: use the async call')
        if t.text == 'eval' and follows_call or t.text == 'new' and i + 1 < len(tokens) and tokens[i + 1].text == 'Function':
            report(path, t.line, 'eval', 'eval( / new Function(')
    check_top_level(path, tokens, report)
    check_enable_disable(path, tokens, report)


def check_css(path, src, report):
    for match in re.finditer(r'font-family\s*:\s*([^;}]*)', src):
        families = [f.strip() for f in match.group(1).split(',')]
        line = src.count('\n', 0, match.start()) + 1
        if any(f[:1] in '"\'' for f in families[1:]):
            report(path, line, 'stylesheet', f'font-family {match.group(1).strip()}: St parses a quoted family only first')


def check_metadata(path, src, files, report):
    try:
        meta = json.loads(src)
    except ValueError as e:
        report(path, 1, 'metadata', f'not JSON: {e}')
        return
    for key in ('uuid', 'name', 'description', 'shell-version', 'url'):
        if not meta.get(key):
            report(path, 1, 'metadata', f'no "{key}"')
    if not re.fullmatch(r'[A-Za-z0-9._-]+@[A-Za-z0-9._-]+', meta.get('uuid', '')):
        report(path, 1, 'metadata', f'uuid {meta.get("uuid")!r} is not extension-id@domain')
    for version in meta.get('shell-version', []):
        if not re.fullmatch(r'[0-9]+', str(version)):
            report(path, 1, 'metadata', f'shell-version {version!r} is not a stable major version')
    check_locale(files, path, meta, report)
    modes = meta.get('session-modes')
    if modes is None:
        return
    if set(modes) - {'user', 'unlock-dialog'} or modes == ['user']:
        report(path, 1, 'metadata', f'session-modes {modes}: only user and unlock-dialog, and none if only user')
    if 'unlock-dialog' in modes:
        entry_path = str(Path(path).parent / 'extension.js') if Path(path).parent != Path('.') else 'extension.js'
        if not disable_comment_names(files.get(entry_path, ''), 'unlock-dialog'):
            report(entry_path, 1, 'metadata', 'session-modes has unlock-dialog but disable() has no comment saying why')


def disable_comment_names(src, word):
    """A comment inside some class's disable() mentions WORD."""
    tokens, lines = tokenize(src), src.split('\n')
    for _name, (_extends, methods) in classes(tokens).items():
        if 'disable' in methods:
            start, end = methods['disable']
            body = '\n'.join(lines[tokens[start].line - 1:tokens[end].line])
            if any(word in c for c in re.findall(r'//[^\n]*|/\*.*?\*/', body, re.S)):
                return True
    return False


def check_locale(files, meta_path, meta, report):
    domain = meta.get('gettext-domain')
    root = Path(meta_path).parent
    for path in files:
        if not Path(path).is_relative_to(root):
            continue
        match = re.fullmatch(r'locale/[^/]+/LC_MESSAGES/([^/]+)\.mo', str(Path(path).relative_to(root)))
        if match and match.group(1) != domain:
            report(path, 1, 'locale', f'{match.group(1)}.mo is not named for metadata.json\'s gettext-domain ({domain})')


TEXT_SUFFIXES = ('.js', '.css', '.json')


def read_files(target):
    """{path: text} of the files it reads (.js, .css, .json); other files (a .mo) map to None."""
    target = Path(target)
    if target.suffix == '.zip':
        with zipfile.ZipFile(target) as z:
            return {n: z.read(n).decode() if n.endswith(TEXT_SUFFIXES) else None
                    for n in z.namelist() if not n.endswith('/')}
    return {str(p.relative_to(target)): p.read_text() if p.suffix in TEXT_SUFFIXES else None
            for p in sorted(target.rglob('*')) if p.is_file()}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    files = read_files(sys.argv[1])
    findings = []

    def report(path, line, rule, what):
        findings.append(f'{path}:{line}: {rule}: {what}')

    for path, src in files.items():
        if path.endswith('.js'):
            check_js(path, src, report)
        elif path.endswith('.css'):
            check_css(path, src, report)
        elif Path(path).name == 'metadata.json':
            check_metadata(path, src, files, report)
    for finding in findings:
        print(finding)
    if findings:
        sys.exit(1)
    print(f'ok: {len(files)} files, no finding (sync-call, eval, top-level, constructor, enable-disable, '
          'metadata, stylesheet, locale)')


if __name__ == '__main__':
    main()
