"""What a screen says about internet invitations (splitnet/app/lan_invite.py; the wormhole itself
is tests/test_wormhole.py): no servers, no Twisted."""

from __future__ import annotations

from pathlib import Path

from splitnet.net.join_state import JoinEvent
from splitnet.net.peer import PeerNode
from splitnet.session.identity import Identity


def test_an_invitation_join_names_the_host_it_joined(tmp_path: Path) -> None:
    """Issue 23: a join through an invitation said "Joined the game hosted at: wormhole:0"
    (the wormhole's stand-in address); it names the invitation while it connects, then
    the host by its name at the table."""
    from splitnet.app.lan_invite import _InvitationLobby

    node = PeerNode(Identity.generate(), tmp_path / "j", "Bo", "wormhole", 0)
    lobby = _InvitationLobby(node, "7-crossover-clockwork")
    assert lobby.address_label == "Joining through the invitation:"
    assert lobby.address == "7-crossover-clockwork" and "wormhole:0" not in lobby.address
    host_key = Identity.generate().public_key_bytes()
    node.host_key = host_key
    node.lobby_players, node.lobby_keys = ["Ana", "Bo"], [host_key, node.key]
    node.net_status = None
    node.session.fire(JoinEvent.LOBBY)  # the host's welcome
    lobby.changed()
    assert lobby.address_label == "Joined the game hosted by:"
    assert lobby.address == "Ana (invitation 7-crossover-clockwork)"
    assert lobby.status == "in the lobby — waiting for the host to start"
