"""The project's own documents: links stay inside the repository, the rules every message
cites are in docs/RULES.md, the license pyproject.toml promises exists, `--help` names
every subcommand."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_LINK = re.compile(r'(?<!\\)\[[^\]\n]*\]\(\s*(?:<([^>\n]*)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)')
_REF_LINK = re.compile(r"^\s{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
_AUTOLINK = re.compile(r"<([a-zA-Z][a-zA-Z0-9+.-]*:[^>\s]*)>")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")


def tracked(pattern: str) -> list[Path]:
    """The repository's files matching ``pattern`` (git's tracked and not-ignored new
    files; outside a git checkout, every file but the virtualenv and caches)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard", "--", pattern], cwd=ROOT,
                             capture_output=True, check=True, timeout=30).stdout
        files = {ROOT / p for p in out.decode().split("\0") if p}
    except (OSError, subprocess.SubprocessError):
        files = {p for p in ROOT.rglob(pattern)
                 if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)}
    return sorted(p for p in files if p.is_file())


def links(text: str) -> list[str]:
    """Link targets of a Markdown text, outside code blocks and code spans."""
    prose = _CODE_SPAN.sub("", _FENCE.sub("", text))
    inline = [angled or bare for angled, bare in _LINK.findall(prose)]
    return inline + _REF_LINK.findall(prose) + _AUTOLINK.findall(prose)


def test_link_finder_sees_every_kind_of_link() -> None:
    text = ("[a](x.md) [b](<y z.md>) [c](d/e.md#part \"title\")\n[r]: ../f.md\n"
            "<https://example.org>\n`[no](code.md)`\n```\n[no](block.md)\n```\n")
    assert links(text) == ["x.md", "y z.md", "d/e.md#part", "../f.md", "https://example.org"]


def test_markdown_links_point_at_files_inside_the_repository() -> None:
    docs = tracked("*.md")
    assert {"README.md", "docs/RULES.md", "protocol/README.md"} <= {
        p.relative_to(ROOT).as_posix() for p in docs}
    bad: list[str] = []
    for doc in docs:
        for target in links(doc.read_text(encoding="utf-8")):
            where = f"{doc.relative_to(ROOT)}: {target}"
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith(("/", "//")):
                bad.append(f"{where} (points outside the repository)")
                continue
            path = target.split("#", 1)[0]
            if not path:
                continue  # a link to a heading of the same document
            dest = (doc.parent / path).resolve()
            if not dest.is_relative_to(ROOT):
                bad.append(f"{where} (leaves the repository)")
            elif not dest.exists():
                bad.append(f"{where} (no such file)")
    assert not bad, "\n".join(bad)


def test_no_document_names_a_path_outside_the_repository() -> None:
    """Not even as text: `../shared/RULES.md` and the like mean nothing in a clone."""
    pattern = re.compile(r"\.\./shared|(?<![\w.])\.\./\.\.|/work/|(?<![\w/])seeds/0")
    bad = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
           for ext in ("*.md", "*.py", "*.toml")
           for p in tracked(ext)
           for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if pattern.search(line) and p.name != "test_docs.py"]
    assert not bad, "\n".join(bad)


def _rule_numbers(text: str) -> set[str]:
    return set(re.findall(r"\bR[1-8](?:\.\d+)?", text))


def test_every_rule_the_code_cites_is_in_docs_rules() -> None:
    rules = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    defined = set(re.findall(r"^## (R[1-8]) ", rules, re.M))
    defined |= set(re.findall(r"^- (R[1-8]\.\d+) ", rules, re.M))
    assert {"R1", "R8", "R4.3", "R5.5", "R6.2", "R7.4"} <= defined
    cited: dict[str, str] = {}
    for p in tracked("*.py") + tracked("*.md"):
        if p.name == "RULES.md":
            continue
        for r in _rule_numbers(p.read_text(encoding="utf-8")):
            cited.setdefault(r, str(p.relative_to(ROOT)))
    missing = {r: where for r, where in cited.items() if r not in defined}
    assert not missing, f"cited but not in docs/RULES.md: {missing}"


def test_splito_is_in_the_project_and_its_status_is_stated() -> None:
    text = (ROOT / "docs" / "SPLITO.md").read_text(encoding="utf-8")
    head = "\n".join(text.splitlines()[:11])
    assert "Splito" in head and "splitnet play --game" in head and "LAN" in head
    assert "fair deck" in head and "SPLITO_GAME.md" in head and "splitnet verify" in head
    assert "--local-shuffle" in head and "test tool" in head
    assert "(SPLITO.md)" in (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")


def test_every_splito_rule_the_code_cites_is_in_docs_splito() -> None:
    rules = (ROOT / "docs" / "SPLITO.md").read_text(encoding="utf-8")
    defined = set(re.findall(r"^## (S\d+) ", rules, re.M))
    defined |= set(re.findall(r"^- (S\d+\.\d+) ", rules, re.M))
    assert {"S1", "S13", "S7.3", "S12.4", "S9.6"} <= defined
    cited: dict[str, str] = {}
    for p in tracked("*.py"):
        text = p.read_text(encoding="utf-8")
        if "splito" not in str(p).lower():
            continue
        for r in re.findall(r"\bS1?\d(?:\.\d+)?\b", text):
            cited.setdefault(r, str(p.relative_to(ROOT)))
    missing = {r: where for r, where in cited.items() if r not in defined}
    assert not missing, f"cited but not in docs/SPLITO.md: {missing}"
    assert len(cited) > 40


def test_the_license_pyproject_promises_is_there_and_declared_the_current_way() -> None:
    """pyproject.toml says MIT and ships LICENSE; the SPDX string form (setuptools ≥ 77)
    replaces the deprecated `{text = …}` table that made every install print a warning."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = meta["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "the splitnet authors" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text
    requires = meta["build-system"]["requires"]
    assert any(re.fullmatch(r"setuptools>=(\d+)", r) and int(r.split(">=")[1]) >= 77
               for r in requires), requires
    # A plain .pth for the editable install: no import hook, no "Editable installation"
    # notice on every first ./scripts/play.
    assert meta["tool"]["setuptools"]["package-dir"] == {"": "."}


def test_help_gives_every_subcommand_a_one_line_description() -> None:
    from splitnet.cli import build_parser

    parser = build_parser()
    text = parser.format_help()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    names = list(sub.choices)  # type: ignore[attr-defined]
    assert {"play", "selfplay", "verify", "replay", "bench", "browse", "host", "join",
            "bot"} <= set(names)
    helps = {a.dest: a.help for a in sub._choices_actions}  # type: ignore[attr-defined]
    for name in names:
        line = helps.get(name)
        assert line and "\n" not in line and len(line) <= 60, (name, line)
        assert re.search(rf"^\s+{name}\s+{re.escape(line)}$", text, re.M), name
        own = sub.choices[name]  # type: ignore[attr-defined]
        assert own.description, f"splitnet {name} --help has no description"


@pytest.mark.parametrize("doc", ["README.md", "docs/RULES.md"])
def test_readme_and_rules_name_the_rules_document_in_the_repository(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    if doc == "README.md":
        assert "](docs/RULES.md)" in text and "](LICENSE)" in text
    else:
        assert text.startswith("# Split — the rules this project implements")
