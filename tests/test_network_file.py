"""``DATA_DIR/network.json``: the servers of internet play (protocol/NETWORK.md §12,
docs/PLAYING.md) — read strictly, the command line over the file, a bad file or option
refused in one line naming it and the field, before anything happens."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from splitnet.app.lan_common import _wormhole_settings
from splitnet.localfiles import LocalFileError
from splitnet.net.config import (
    NETWORK_FILE,
    PUBLIC_MAILBOX,
    PUBLIC_RELAY,
    InternetServers,
    NetSettings,
    check_mailbox,
    check_relay,
    load_internet_servers,
)
from tests import forked_cli

MAILBOX = "ws://mailbox.example.org:4000/v1"
RELAY = "tcp:relay.example.org:4001"


def write(d: Path, obj: object) -> Path:
    p = d / NETWORK_FILE
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return p


def args(**kw: object) -> argparse.Namespace:
    base: dict[str, object] = {"mailbox": None, "relay": None, "relay_only": False}
    return argparse.Namespace(**(base | kw))


def test_no_file_is_the_public_servers(tmp_path: Path) -> None:
    assert load_internet_servers(tmp_path / NETWORK_FILE) == InternetServers()
    st = _wormhole_settings(args(), NetSettings(), tmp_path)
    assert (st.mailbox, st.relay) == (PUBLIC_MAILBOX, PUBLIC_RELAY)


def test_the_file_names_the_servers_and_the_command_line_wins(tmp_path: Path) -> None:
    write(tmp_path, {"internet": {"mailbox": MAILBOX, "relay": RELAY}})
    st = _wormhole_settings(args(), NetSettings(wormhole_idle=7), tmp_path)
    assert (st.mailbox, st.relay, st.idle_after) == (MAILBOX, RELAY, 7)
    st = _wormhole_settings(args(mailbox="wss://other.example:443/v1"), NetSettings(),
                            tmp_path)
    assert (st.mailbox, st.relay) == ("wss://other.example:443/v1", RELAY)
    st = _wormhole_settings(args(relay="tcp:127.0.0.1:9"), NetSettings(), tmp_path)
    assert (st.mailbox, st.relay) == (MAILBOX, "tcp:127.0.0.1:9")
    write(tmp_path, {"internet": {"relay": RELAY}})  # either key alone
    st = _wormhole_settings(args(), NetSettings(), tmp_path)
    assert (st.mailbox, st.relay) == (PUBLIC_MAILBOX, RELAY)
    write(tmp_path, {})
    assert load_internet_servers(tmp_path / NETWORK_FILE) == InternetServers()


@pytest.mark.parametrize(("content", "field"), [
    ("{", "not valid JSON"),
    ("[1]", "expected a JSON object"),
    ({"internet": {"mailbox": "http://x.example/v1"}}, "field 'internet.mailbox'"),
    ({"internet": {"mailbox": 4000}}, "field 'internet.mailbox'"),
    ({"internet": {"mailbox": "ws://a b/v1"}}, "field 'internet.mailbox'"),
    ({"internet": {"relay": "relay.example.org:4001"}}, "field 'internet.relay'"),
    ({"internet": {"relay": "tcp:relay.example.org:70000"}}, "field 'internet.relay'"),
    ({"internet": {"relay": "tcp::4001"}}, "field 'internet.relay'"),
    ({"internet": {"mailbx": MAILBOX}}, "unknown field 'internet.mailbx'"),
    ({"internet": "ws://x"}, "field 'internet'"),
    ({"mailbox": MAILBOX}, "unknown field 'mailbox'"),
    ('{"internet": {"relay": "tcp:a:1", "relay": "tcp:b:2"}}', "'relay' appears twice"),
])
def test_a_bad_file_is_one_line_naming_the_file_and_field(tmp_path: Path, content: object,
                                                          field: str) -> None:
    p = write(tmp_path, content)
    with pytest.raises(LocalFileError) as e:
        load_internet_servers(p)
    text = str(e.value)
    assert str(p) in text and field in text and "\n" not in text, text
    with pytest.raises(SystemExit) as stop:
        _wormhole_settings(args(), NetSettings(), tmp_path)
    assert str(p) in str(stop.value.code) and field in str(stop.value.code)


def test_a_directory_or_fifo_in_its_place_is_refused(tmp_path: Path) -> None:
    (tmp_path / NETWORK_FILE).mkdir()
    with pytest.raises(LocalFileError, match="is a directory"):
        load_internet_servers(tmp_path / NETWORK_FILE)


def test_server_checks() -> None:
    assert check_mailbox(MAILBOX) == MAILBOX and check_relay(RELAY) == RELAY
    assert check_relay("tcp:127.0.0.1:4001") == "tcp:127.0.0.1:4001"
    for bad in ("", "ws://", "ws:///v1", "ftp://x/v1", "ws://x:99999/v1", "ws://x\x1b/v1",
                "ws://" + "x" * 600):
        with pytest.raises(ValueError):
            check_mailbox(bad)
    for bad in ("", "tcp:", "tcp:x", "tcp:x:0", "tcp:x:port", "udp:x:1", "tcp:a b:1",
                "tcp:x:１２"):
        with pytest.raises(ValueError):
            check_relay(bad)


def test_the_commands_refuse_a_bad_file_or_option_in_one_line(tmp_path: Path) -> None:
    """``splitnet bot CODE`` and ``host --internet``: exit 1 with one line naming what
    is wrong, no traceback, nothing written (no identity, no game). Each in a process of
    its own, forked with the program imported already (tests/forked_cli.py)."""
    write(tmp_path, {"internet": {"relay": "tcp:relay.example.org"}})
    for cmd in (["bot", "7-crossover-clockwork"],
                ["host", "--internet", "--no-announce", "--seats", "2", "--plain"]):
        out = forked_cli.run([*cmd, "--data-dir", str(tmp_path)], timeout=60)
        assert out.returncode == 1, out
        err = out.stderr.strip()
        assert "Traceback" not in err and len(err.splitlines()) == 1, err
        assert NETWORK_FILE in err and "internet.relay" in err, err
    out = forked_cli.run(["bot", "7-crossover-clockwork", "--mailbox", "http://x/v1",
                          "--data-dir", str(tmp_path / "d2")], timeout=60)
    assert out.returncode == 1 and out.stderr.strip().splitlines()[-1].startswith(
        "splitnet: --mailbox: a mailbox is a ws://"), out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [NETWORK_FILE]


def test_the_config_doctests() -> None:
    import doctest

    from splitnet.net import config

    failed, tried = doctest.testmod(config)
    assert tried > 0 and failed == 0
